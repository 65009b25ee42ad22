#!/usr/bin/env bash
# A one-node Slurm cluster started here (Debian's slurm-wlm: slurmctld + slurmd, auth/none, both
# on 127.0.0.1 only, two GPUs as count-only GRES, the host backend drawing), for
# scripts/slurm/submit.sh: a sequence rendered by an array of 4 tasks equals the same sequence
# rendered by one process, byte for byte; a task requeued while running (Slurm kills it and
# starts it again) leaves the same complete result, having rendered only what was missing; the
# merge job runs after the array and passes. The daemons run for a bounded time and are
# stopped here whatever happens.
# Usage: one_node.sh VIEWER OUT_DIR
set -uo pipefail
viewer=$(realpath "$1"); out=$2
root="$(cd "$(dirname "$0")/../.." && pwd)"
for tool in slurmctld slurmd sbatch squeue scontrol sinfo; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool not installed (scripts/install-deps.sh installs slurm-wlm)"; exit 77; }
done
rm -rf "$out"; mkdir -p "$out"; out=$(realpath "$out"); cd "$out"
failures=0
wrong() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- the cluster ------------------------------------------------------------------------------
ports=$(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r ctld_port d_port <<<"$ports"
user=$(id -un)
mkdir -p state spool
cat >slurm.conf <<EOF
ClusterName=tandemtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
AuthType=auth/none
CredType=cred/none
SlurmUser=$user
SlurmdUser=$user
StateSaveLocation=$out/state
SlurmdSpoolDir=$out/spool
SlurmctldPidFile=$out/slurmctld.pid
SlurmdPidFile=$out/slurmd.pid
SlurmctldLogFile=$out/slurmctld.log
SlurmdLogFile=$out/slurmd.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=2000 Gres=gpu:2 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=30 State=UP
EOF
# Two stand-in GPUs: Slurm counts them and hands one to each task; the host backend draws.
cat >gres.conf <<EOF
NodeName=localhost Name=gpu File=/dev/null
NodeName=localhost Name=gpu File=/dev/zero
EOF
export SLURM_CONF=$out/slurm.conf
timeout 900 slurmctld -D >slurmctld.out 2>&1 &
ctld=$!
timeout 900 slurmd -D -N localhost >slurmd.out 2>&1 &
slurmd=$!
stop() {
    scancel --quiet --user "$user" 2>/dev/null
    kill "$ctld" "$slurmd" 2>/dev/null
    wait "$ctld" "$slurmd" 2>/dev/null
}
trap stop EXIT
for _ in $(seq 1 150); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.2
done
sinfo -h -o %t | grep -q idle ||
    { echo "FAIL: the test cluster did not come up"; tail -5 slurmctld.log slurmd.log; exit 1; }
# Every listening socket on the two ports, from the kernel's tables: both on 127.0.0.1 only.
listening=$(python3 - "$ctld_port" "$d_port" <<'PY'
import socket, struct, sys
ports = {int(p) for p in sys.argv[1:]}
found = []
for table, family in (("/proc/net/tcp", 4), ("/proc/net/tcp6", 6)):
    try:
        lines = open(table).read().splitlines()[1:]
    except OSError:
        continue
    for line in lines:
        fields = line.split()
        address, port = fields[1].split(":")
        if fields[3] != "0A" or int(port, 16) not in ports:  # 0A: LISTEN
            continue
        if family == 4:
            host = socket.inet_ntoa(struct.pack("<I", int(address, 16)))
        else:
            host = "[" + address + "]"
        found.append(f"{host}:{int(port, 16)}")
print(" ".join(sorted(found, key=lambda entry: (int(entry.rsplit(":", 1)[1]), entry))))
PY
)
echo "cluster up: slurmctld and slurmd listening on $listening"
[ "$listening" = "127.0.0.1:$(printf '%s\n' "$ctld_port" "$d_port" | sort -n | head -1) 127.0.0.1:$(printf '%s\n' "$ctld_port" "$d_port" | sort -n | tail -1)" ] ||
    wrong "the daemons should listen on 127.0.0.1 only, on their two ports: $listening"

# --- one process, then an array of 4 tasks ----------------------------------------------------
seq="sample:points=20000,frames=960"
args=(--size 80x60 --backend host --loader-threads 1)
"$viewer" --headless "$seq" --frame-range 0: --out reference -q "${args[@]}" || wrong "reference: exit $?"
"$root/scripts/slurm/submit.sh" "$seq" rendered --gpus 2 --tasks 4 --viewer "$viewer" \
    --sbatch "--cpus-per-task=1" -- "${args[@]}" >submit.log 2>&1 || wrong "submit.sh: $(cat submit.log)"
cat submit.log
array=$(sed -n 's/^submitted: render array \([0-9]*\) .*/\1/p' submit.log)
merge=$(sed -n 's/.*, merge \([0-9]*\)$/\1/p' submit.log)
[ -n "$array" ] && [ -n "$merge" ] || { echo "FAIL: no job ids"; exit 1; }

# Requeue task 1 once it is running and has written some frames (its frames are 240 to 479).
requeued=0
for _ in $(seq 1 600); do
    written=$(ls rendered 2>/dev/null | grep -cE 'frame_000(2[4-9][0-9]|3[0-9][0-9]|4[0-7][0-9])\.png')
    if [ "$written" -ge 15 ] && squeue -h -j "${array}_1" -o %T 2>/dev/null | grep -q RUNNING; then
        scontrol requeue "${array}_1" && requeued=$written
        break
    fi
    sleep 0.1
done
[ "$requeued" -gt 0 ] && echo "requeued task 1 while running, $requeued of its frames written" ||
    wrong "task 1 was never caught running to requeue"
# Slurm holds a requeued job back two minutes (its begin time): once it is pending again, let it
# start now.
for _ in $(seq 1 300); do
    if squeue -h -j "${array}_1" -o %T 2>/dev/null | grep -q PENDING; then
        scontrol update JobId="${array}_1" StartTime=now && break
    fi
    sleep 0.1
done

for _ in $(seq 1 1800); do # until every job has left the queue, at most 3 minutes
    [ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] && break
    sleep 0.1
done
[ -z "$(squeue -h -j "$array,$merge" 2>/dev/null)" ] || wrong "jobs still queued: $(squeue)"

# --- the verdict -----------------------------------------------------------------------------
merge_log="rendered/logs/merge_$merge.log"
grep -q "all 960 frames present once and complete" "$merge_log" 2>/dev/null ||
    wrong "the merge did not pass: $(cat "$merge_log" 2>/dev/null || echo 'no merge log')"
[ "$(ls rendered | grep -c '\.png$')" = 960 ] || wrong "$(ls rendered | grep -c '\.png$') frames, not 960"
[ "$(find rendered -name '*.partial' | wc -l)" = 0 ] || wrong "a .partial file was kept"
for f in reference/*.png; do cmp -s "$f" "rendered/$(basename "$f")" || wrong "$(basename "$f") differs"; done
log1=$(ls rendered/logs/render_"${array}"_1.log 2>/dev/null)
grep -q "restart 1" "$log1" 2>/dev/null || wrong "task 1 did not run again: $(cat "$log1" 2>/dev/null)"
grep -q "resuming: [0-9]* frames already written" "$log1" ||
    wrong "task 1's second run did not resume: $(cat "$log1")"
for task in 0 2 3; do
    grep -q "task $task done" "rendered/logs/render_${array}_$task.log" || wrong "task $task did not finish"
done

if [ "$failures" -ne 0 ]; then
    echo "$failures failures"; tail -20 slurmctld.log; exit 1
fi
echo "one-node Slurm: 4 tasks equal one process byte for byte, a requeued task resumed"
