/**
 * The end of a training run, the same for both entry points: the `final` log record, <work>/train-record.json,
 * and (unless disabled) the Hugging Face export to <out> with its train-record.json and model card, then the
 * `export` log record.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportGpt2 } from '../onnx-export/export.ts';
import type { Gpt2Config, Gpt2Weights } from './gpt2.ts';
import { writeModelCard } from './model-card.ts';
import type { RunLog } from './run-log.ts';

export interface Finish {
  work: string;
  out: string;
  export: boolean;
  log: RunLog;
  /** The run record (options, counters, data, final probes): logged, and written as train-record.json. */
  record: Record<string, unknown>;
  model: { config: Gpt2Config; weights: Gpt2Weights; tokenizer: Record<string, unknown> };
  /** A finetuned model's base directory, for its card. */
  baseDir?: string;
}

export async function finishRun(f: Finish): Promise<void> {
  const recordJson = JSON.stringify(f.record, null, 2) + '\n';
  f.log.write({ event: 'final', ...f.record });
  writeFileSync(join(f.work, 'train-record.json'), recordJson);
  if (!f.export) return;
  const files = await exportGpt2(f.out, f.model);
  writeFileSync(join(f.out, 'train-record.json'), recordJson);
  writeModelCard(f.work, f.out, f.baseDir);
  f.log.write({ event: 'export', ...files });
}
