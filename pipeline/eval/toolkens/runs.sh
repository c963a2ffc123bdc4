#!/usr/bin/env bash
# Issue 29 item 4, issue 47 item 3: the toolkens runs behind pipeline/eval/toolkens/report.ts, then the no-model
# outcomes (no-model.ts: the rules, and which of each constrained call's proposals answer) and the report. Resumable: a
# run whose output exists is skipped (a constrained run made before calls recorded their proposals has no picks for
# no-model.ts: delete it to run it again). Needs the experiment's arm files (out/experiment/arms/{a,b}.jsonl: `npx tsx pipeline/eval/experiment/run.ts
# next` until the arms exist; a.jsonl is also committed as models/toolformer/finetune-data/a.jsonl).
#   bash pipeline/eval/toolkens/runs.sh [train|eval|report|all]   (prefix with a CPU gate on a shared machine)
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${TOOLKENS_OUT:-out/toolkens}
SET=pipeline/eval/experiment/prompts.jsonl
NOCALL=$OUT/prompts-nocall.jsonl
MODEL=models/default
SEEDS=${SEEDS:-"1 2 3"}
mkdir -p "$OUT"
what=${1:-all}
if [ "$what" = train ] || [ "$what" = all ]; then
  for data in a b; do
    for s in $SEEDS; do
      f=$OUT/tk-$data-s$s.safetensors
      [ -f "$f" ] || npx tsx pipeline/node/cli/cli.ts toolkens train out/experiment/arms/$data.jsonl --model $MODEL --seed "$s" --out "$f" --quiet
    done
  done
fi
if [ "$what" = eval ] || [ "$what" = all ]; then
  grep -E '"family":"(dates-stated|relevance)"' "$SET" > "$NOCALL"
  ev() { # name set extra-flags…
    local name=$1 set=$2; shift 2
    [ -f "$OUT/eval/$name/trials.jsonl" ] || npx tsx pipeline/node/cli/cli.ts eval --model $MODEL --set "$set" --trials 0 --no-without-tools --quiet --out "$OUT/eval/$name" "$@" > /dev/null
  }
  ev base "$SET"
  # Seed by seed, so that a stop leaves whole seeds: kept calls free and constrained, unfiltered calls on the no-call families.
  for s in $SEEDS; do
    ev "tk-a-free-s$s" "$SET" --toolkens "$OUT/tk-a-s$s.safetensors" --toolken-mode free
    ev "tk-b-free-s$s" "$NOCALL" --toolkens "$OUT/tk-b-s$s.safetensors" --toolken-mode free
    ev "tk-a-constrained-s$s" "$SET" --toolkens "$OUT/tk-a-s$s.safetensors" --toolken-mode constrained
  done
  # The toolken bias (the paper's inference knob; 0 above) as a sensitivity curve: negative values fire less.
  for bias in ${BIASES:--1 -2}; do
    tag=b${bias/-/m}
    for s in $SEEDS; do
      ev "$tag-tk-a-free-s$s" "$SET" --toolkens "$OUT/tk-a-s$s.safetensors" --toolken-mode free --toolken-bias "$bias"
      ev "$tag-tk-a-constrained-s$s" "$SET" --toolkens "$OUT/tk-a-s$s.safetensors" --toolken-mode constrained --toolken-bias "$bias"
      ev "$tag-tk-b-free-s$s" "$NOCALL" --toolkens "$OUT/tk-b-s$s.safetensors" --toolken-mode free --toolken-bias "$bias"
    done
  done
fi
if [ "$what" = report ] || [ "$what" = all ]; then
  TOOLKENS_OUT=$OUT npx tsx pipeline/eval/toolkens/no-model.ts
  TOOLKENS_OUT=$OUT npx tsx pipeline/eval/toolkens/report.ts > /dev/null
fi
