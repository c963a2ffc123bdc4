/**
 * `toolformer annotate`'s flags as the command receives them (cli-run-commands.ts declares them; annotate-command.ts
 * turns them into the run plan).
 */
import type { RunFlags } from '../../core/run-plan.ts';
import type { Dtype } from '../model/hf-cache.ts';
import type { LlamaGelu } from '../model/lm-backends/llama-gelu.ts';

export interface AnnotateFlags extends RunFlags {
  /** What the LM backend registry opens (lm-backends/registry.ts): a model folder or org/name, a .gguf file, a server URL. */
  model: string;
  /** A served model's tokenizer and config folder (`--tokenizer`). */
  tokenizer?: string;
  /** The name the server knows the model by (`--served-model`). */
  servedModel?: string;
  /** `--server-timeout` seconds and `--server-max-response-mb` (a served model's HTTP limits). */
  serverTimeout?: number;
  serverMaxResponseMb?: number;
  /** Which ONNX file of the model (onnx/model.onnx, model_fp16.onnx, …). @default "fp32" */
  dtype?: Dtype;
  /** A .gguf model's GELU: the prebuilt table build or the exact local build (`--llama-gelu`). @default "table" */
  llamaGelu?: LlamaGelu;
  maxDocs?: number;
  out: string;
  resume?: boolean;
  /** Replace an earlier run in --out (its files only). */
  overwrite?: boolean;
  quiet?: boolean;
  /** Worker processes on this machine. @default os.availableParallelism() */
  workers?: number;
  /** "i/N": process one shard of N, for `toolformer merge`. */
  shard?: string;
  /** redis://host:port[/db]: enqueue the chunks for `toolformer worker`s and follow the run. */
  queue?: string;
  /** Input items per chunk. @default DEFAULT_CHUNK_ITEMS */
  chunk?: number;
  /** `--no-probe-cache`: false, the probes run and their verdicts are neither read from nor written to the cache. */
  probeCache?: boolean;
  /** After the run: `toolformer export` it in these formats (export/formats.ts) to <out>/export/<format>. */
  export?: string;
}

