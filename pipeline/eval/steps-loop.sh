#!/usr/bin/env bash
# The loop of the long, resumable jobs: `bash pipeline/eval/steps-loop.sh experiment|rounds [lane]` (npm run
# experiment, npm run experiment -- pretrain, npm run rounds) runs `tsx pipeline/eval/<job>/run.ts next [lane]` — one
# step per process — until it exits 10 (every step done, or waiting). A failed step is retried twice after a minute (a checkout changing under a long run, a transient
# error), then the loop stops. Resume after any stop with the same command.
set -uo pipefail
job=${1:?usage: steps-loop.sh experiment|rounds [lane]}
cd "$(dirname "$0")/../.."
failures=0
while true; do
  npx tsx "pipeline/eval/$job/run.ts" next "${@:2}"
  rc=$?
  if [ "$rc" -eq 10 ]; then exit 0; fi
  if [ "$rc" -eq 0 ]; then failures=0; continue; fi
  failures=$((failures + 1))
  if [ "$failures" -ge 3 ]; then
    echo "[$job] stopped: a step failed 3 times (exit $rc); fix it and rerun npm run $job" >&2
    exit "$rc"
  fi
  echo "[$job] step failed (exit $rc); retrying in 60 s" >&2
  sleep 60
done
