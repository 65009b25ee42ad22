#!/usr/bin/env bash
# Runs a command and checks its exit code and that its output contains a text.
# Usage: check_cli.sh EXPECTED_EXIT EXPECTED_TEXT COMMAND [ARGS...]
set -u
expected_code=$1; expected_text=$2; shift 2
output=$("$@" 2>&1 </dev/null); code=$?
echo "$output" | head -20
if [ "$code" != "$expected_code" ]; then
    echo "FAIL: exit code $code, expected $expected_code"; exit 1
fi
if ! grep -qF -- "$expected_text" <<<"$output"; then
    echo "FAIL: output lacks '$expected_text'"; exit 1
fi
if [ "$expected_code" != 0 ] && ! grep -q '^error: ' <<<"$output"; then
    echo "FAIL: no line starting with 'error: '"; exit 1
fi
echo "ok: exit $code with '$expected_text'"
