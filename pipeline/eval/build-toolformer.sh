#!/usr/bin/env bash
# Rebuilds models/toolformer from scratch (npm run build:toolformer): writes the C* inputs, annotates them with the
# bundled model (programmatic proposers only: the base model cannot emit a call), and finetunes models/default on the
# kept calls. Every step is resumable: rerun the same command after a kill. ~1 h on one free core.
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${DATA:-out/toolformer-data}
WORK=${WORK:-.cache/finetune-toolformer}
npx tsx pipeline/eval/build-data.ts "$DATA"
for name in kbprose factbook sotu; do
  if [ -f "$DATA/ann-$name/stats.json" ]; then continue; fi
  resume=(); [ -f "$DATA/ann-$name/checkpoint.json" ] && resume=(--resume)
  npx toolformer annotate "$DATA/$name.jsonl" --out "$DATA/ann-$name" --no-lm-proposals "${resume[@]}"
done
resume=(); [ -f "$WORK/ckpt.json" ] && resume=(--resume)
npx toolformer finetune --data "$DATA/ann-kbprose/train.jsonl" "$DATA/ann-factbook/train.jsonl" "$DATA/ann-sotu/train.jsonl" \
  --out models/toolformer --work "$WORK" --steps 600 --quiet --rebuild "npm run build:toolformer" "${resume[@]}"
