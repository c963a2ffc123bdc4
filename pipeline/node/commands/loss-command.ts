/**
 * `toolformer loss --model <dir> --input <corpus.jsonl> --tokens n --out <loss.json>`: the held-out loss without
 * calls (the paper's perplexity check, Table 8) in nats/token over ≥ n tokens of the input documents' texts, in
 * windows of the model's context after `<|endoftext|>`; every window's mean is kept, so two models scored on the same
 * input can be compared window by window (pipeline/eval/experiment/loss.ts).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readJsonl } from '../../io/jsonl.ts';
import { heldOutLoss, lossWindows } from '../../eval/experiment/loss.ts';
import type { Device } from '../../core/lm/devices.ts';
import { assertDeviceInstalled } from '../model/device.ts';
import { loadModel } from '../model/load-model.ts';

export interface LossOptions {
  model: string;
  input: string;
  tokens: number;
  out: string;
  /** Where the LM runs (`--device`). @default "cpu" */
  device?: Device;
}

export async function lossCommand(o: LossOptions): Promise<{ tokens: number; meanNll: number }> {
  assertDeviceInstalled(o.device ?? 'cpu'); // before the corpus is read: a missing provider fails at once
  const texts = readJsonl<{ text?: unknown }>(o.input).map((d, i) => {
    if (typeof d.text !== 'string') throw new Error(`${o.input}: record ${i + 1} has no "text" string`);
    return d.text;
  });
  const lm = await loadModel(o.model, { device: o.device });
  const result = await heldOutLoss(lm, lossWindows(lm, texts, o.tokens));
  mkdirSync(dirname(o.out), { recursive: true });
  writeFileSync(o.out + '.tmp', JSON.stringify({ model: relative(process.cwd(), o.model) || o.model, input: o.input, ...result }, null, 2) + '\n');
  renameSync(o.out + '.tmp', o.out);
  return result;
}
