#!/usr/bin/env bash
# Runs check_cli.sh only on machines where CUDA cannot work (no nvidia-smi answering); exits 77
# (skip) where a GPU is present, since there the command is expected to succeed.
# Usage: expect_no_cuda.sh CHECK_CLI EXPECTED_EXIT EXPECTED_TEXT COMMAND...
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    echo "skipped: a GPU is present here"
    exit 77
fi
exec "$@"
