#!/usr/bin/env bash
# npm run experiment: one step per process until every step is done (run.ts next exits 10). A failed step is retried
# twice after a minute (a checkout changing under a long run, a transient error), then the loop stops.
# Resume after any stop with the same command; see pipeline/eval/experiment/README.md.
set -uo pipefail
cd "$(dirname "$0")/../../.."
failures=0
while true; do
  npx tsx pipeline/eval/experiment/run.ts next
  rc=$?
  if [ "$rc" -eq 10 ]; then exit 0; fi
  if [ "$rc" -eq 0 ]; then failures=0; continue; fi
  failures=$((failures + 1))
  if [ "$failures" -ge 3 ]; then
    echo "[experiment] stopped: a step failed 3 times (exit $rc); fix it and rerun npm run experiment" >&2
    exit "$rc"
  fi
  echo "[experiment] step failed (exit $rc); retrying in 60 s" >&2
  sleep 60
done
