/**
 * `toolformer loss --model <dir|.gguf|url|auto:dir> --input <corpus.jsonl> --tokens n --out <loss.json>`: the held-out loss without
 * calls (the paper's perplexity check, Table 8) in nats/token over ≥ n tokens of the input documents' texts, in
 * windows of the model's context after `<|endoftext|>`; every window's mean is kept, so two models scored on the same
 * input can be compared window by window (pipeline/eval/experiment/loss.ts). Any LM backend scores it: an ONNX folder,
 * a .gguf through llama.cpp, a served model with prompt log-probs, auto:….
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { readJsonl } from '../../io/jsonl.ts';
import { heldOutLoss, lossWindows } from '../../eval/experiment/loss.ts';
import type { Device } from '../../core/lm/devices.ts';
import { backendFlags, type BackendFlags } from '../cli/cli-options.ts';
import { backendFor, openLM } from '../model/lm-backends/registry.ts';

export interface LossOptions extends BackendFlags {
  model: string;
  input: string;
  tokens: number;
  out: string;
  /** Where the LM runs (`--device`). @default "cpu" */
  device?: Device;
}

export async function lossCommand(o: LossOptions): Promise<{ tokens: number; meanNll: number }> {
  const texts = readJsonl<{ text?: unknown }>(o.input).map((d, i) => {
    if (typeof d.text !== 'string') throw new Error(`${o.input}: record ${i + 1} has no "text" string`);
    return d.text;
  });
  // A device the backend does not run on, or a missing provider, fails here in one line.
  const lm = await openLM(o.model, { device: o.device, ...backendFlags(o) });
  const result = await heldOutLoss(lm, lossWindows(lm, texts, o.tokens)).finally(() => lm.release?.());
  mkdirSync(dirname(o.out), { recursive: true });
  const model = backendFor(o.model).name === 'server' ? o.model : relative(process.cwd(), o.model) || o.model;
  writeFileSync(o.out + '.tmp', JSON.stringify({ model, input: o.input, ...result }, null, 2) + '\n');
  renameSync(o.out + '.tmp', o.out);
  return result;
}
