/**
 * The bundled model widened to GPT-2 small's blocks (768 wide, 12 heads of 64, 12 layers, MLP 3,072; the paper's
 * smallest model, 124M with GPT-2's 50,257-token vocabulary): the same function as models/default (onnx-export/widen-gpt2.ts;
 * the logits equal to float rounding), at ~85M parameters of blocks. The bundled 1,024-token vocabulary and 128
 * positions stay, so every scoring window is the bundled model's. The pipeline then does a real model's work per token
 * with a trained model's verdicts, which random weights at this size do not give (they keep or reject calls by chance).
 *
 *   npx tsx pipeline/bench/widened-model.ts [--out out/bench/gpt2-small-shape-default]
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { exportGpt2 } from '../onnx-export/export.ts';
import { readGpt2Onnx } from '../onnx-export/onnx-weights.ts';
import { widenGpt2 } from '../onnx-export/widen-gpt2.ts';
import { scriptFlag } from '../io/script-flag.ts';

const ROOT = resolve(import.meta.dirname, '../..');
export const WIDENED_MODEL_DIR = join(ROOT, 'out/bench/gpt2-small-shape-default');
/** GPT-2 small's width is 3 × the bundled model's 256; its 12 heads are 3 × 4. */
export const GPT2_SMALL_BLOCKS = { factor: 3, nLayer: 12, seed: 124 };

export async function writeWidenedModel(out: string): Promise<number> {
  const source = join(ROOT, 'models/default');
  const configJson = JSON.parse(await readFile(join(source, 'config.json'), 'utf8')) as Record<string, unknown>;
  const { config, weights } = readGpt2Onnx(await readFile(join(source, 'onnx/model.onnx')), configJson);
  const wide = widenGpt2(config, weights, GPT2_SMALL_BLOCKS);
  const tokenizer = JSON.parse(await readFile(join(source, 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
  const extra = { widened_from: 'models/default', widening: GPT2_SMALL_BLOCKS };
  return (await exportGpt2(out, { config: wide.config, weights: wide.weights, tokenizer, extra })).modelBytes;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(scriptFlag('out', WIDENED_MODEL_DIR));
  const bytes = await writeWidenedModel(out);
  console.log(`wrote ${out} (onnx/model.onnx ${(bytes / 2 ** 20).toFixed(0)} MiB)`);
}
