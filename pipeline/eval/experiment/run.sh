#!/usr/bin/env bash
# npm run experiment: one step per process until every step is done (run.ts next exits 10), stopping at a failure.
# Resume after any stop with the same command; see pipeline/eval/experiment/README.md.
set -uo pipefail
cd "$(dirname "$0")/../../.."
while true; do
  npx tsx pipeline/eval/experiment/run.ts next
  rc=$?
  if [ "$rc" -eq 10 ]; then exit 0; fi
  if [ "$rc" -ne 0 ]; then echo "[experiment] stopped: a step failed (exit $rc); fix it and rerun npm run experiment" >&2; exit "$rc"; fi
done
