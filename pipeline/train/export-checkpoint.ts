/**
 * `tsx pipeline/train/export-checkpoint.ts <work> <base> <out>`: export a run's checkpoint (<work>/checkpoint.bin,
 * written by either entry point) as a model directory, to try generation mid-run; the tokenizer is
 * <base>/tokenizer.json (a finetune's base model; for a `train:model` run, its <work>).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { exportGpt2 } from '../onnx-export/export.ts';
import { CHECKPOINT_FILE, readCheckpoint } from './checkpoint.ts';
import { Gpt2, type Gpt2Config } from './gpt2.ts';

const { positionals } = parseArgs({ allowPositionals: true });
const [work, base, out] = positionals;
if (!out) throw new Error('usage: tsx pipeline/train/export-checkpoint.ts <work> <base> <out>');
const path = join(work, CHECKPOINT_FILE);
const ckpt = readCheckpoint(path);
if (!ckpt) throw new Error(`${path}: no checkpoint`);
const config = ckpt.header.config as Gpt2Config;
const model = new Gpt2(config, config.nPositions);
model.params.set(ckpt.tensors.params);
await exportGpt2(out, { config, weights: model.weights(), tokenizer: JSON.parse(readFileSync(join(base, 'tokenizer.json'), 'utf8')) });
console.log(`step ${ckpt.header.step} → ${out}`);
