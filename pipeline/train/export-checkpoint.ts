/**
 * `tsx pipeline/train/export-checkpoint.ts <work> <base> <out>`: export a finetune checkpoint (<work>/ckpt.bin) as a
 * model directory, to try generation mid-run; the tokenizer comes from <base>.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportGpt2 } from '../onnx/export.ts';
import { Gpt2 } from './gpt2.ts';

const [work, base, out] = process.argv.slice(2);
if (!out) throw new Error('usage: tsx pipeline/train/export-checkpoint.ts <work> <base> <out>');
const meta = JSON.parse(readFileSync(join(work, 'ckpt.json'), 'utf8'));
const model = new Gpt2(meta.config, meta.config.nPositions);
const bin = new Float32Array(readFileSync(join(work, 'ckpt.bin')).buffer.slice(0));
model.params.set(bin.subarray(0, model.params.length));
await exportGpt2(out, { config: meta.config, weights: model.weights(), tokenizer: JSON.parse(readFileSync(join(base, 'tokenizer.json'), 'utf8')) });
console.log(`step ${meta.step} → ${out}`);
