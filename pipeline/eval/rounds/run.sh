#!/usr/bin/env bash
# npm run rounds: one step per process until every step is done (run.ts next exits 10); a failed step is retried
# twice after a minute, then the loop stops. Resume after any stop with the same command (pipeline/eval/rounds/README.md).
set -uo pipefail
cd "$(dirname "$0")/../../.."
failures=0
while true; do
  npx tsx pipeline/eval/rounds/run.ts next
  rc=$?
  if [ "$rc" -eq 10 ]; then exit 0; fi
  if [ "$rc" -eq 0 ]; then failures=0; continue; fi
  failures=$((failures + 1))
  if [ "$failures" -ge 3 ]; then
    echo "[rounds] stopped: a step failed 3 times (exit $rc); fix it and rerun npm run rounds" >&2
    exit "$rc"
  fi
  echo "[rounds] step failed (exit $rc); retrying in 60 s" >&2
  sleep 60
done
