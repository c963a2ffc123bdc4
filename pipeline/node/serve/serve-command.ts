/**
 * `toolformer serve --model M`: loads M on its backend (lm-backends/registry.ts; an ONNX folder keeps its hidden
 * states, so `prompt_logprobs: k > 0` has the full distribution) and serves it (serve.ts) until SIGINT or SIGTERM.
 */
import type { Device } from '../../core/lm/devices.ts';
import type { HiddenStateLM } from '../../core/lm/lm.ts';
import type { Dtype } from '../model/hf-cache.ts';
import type { LlamaGelu } from '../model/lm-backends/llama-gelu.ts';
import { backendFor, openLM } from '../model/lm-backends/registry.ts';
import { serve } from './serve.ts';

export interface ServeFlags {
  model: string;
  dtype?: Dtype;
  device?: Device;
  /** A .gguf model's GELU build (`--llama-gelu`). @default "table" */
  llamaGelu?: LlamaGelu;
  servedModelName?: string;
  /** The address to listen on. @default 127.0.0.1 */
  host?: string;
  port: number;
  apiKeyEnv?: string;
  quiet?: boolean;
}

export async function serveCommand(flags: ServeFlags): Promise<void> {
  const apiKey = flags.apiKeyEnv === undefined ? undefined : process.env[flags.apiKeyEnv];
  if (flags.apiKeyEnv !== undefined && !apiKey) throw new Error(`--api-key-env ${flags.apiKeyEnv}: the environment has no ${flags.apiKeyEnv} (or it is empty)`);
  const backend = backendFor(flags.model);
  if (backend.name === 'server') throw new Error(`--model ${flags.model}: serve loads a model in this process (a folder or a .gguf file), not another server`);
  const opening = { dtype: flags.dtype, device: flags.device, ...(flags.llamaGelu === 'exact' ? { llamaGelu: flags.llamaGelu } : {}) };
  const lm = await openLM(flags.model, opening);
  // Full distributions (prompt_logprobs k > 0) from a second session with hidden states, opened on the first request
  // that asks: scoring with the extensions needs only the model's own scorer, without copying h out on every pass.
  let distributions: Promise<HiddenStateLM | undefined> | undefined;
  const full = backend.name === 'onnx';
  const openDistributions = () =>
    (distributions ??= full ? openLM(flags.model, { ...opening, lm: { hiddenStates: true } }).then((m) => m as unknown as HiddenStateLM) : Promise.resolve(undefined));
  const served = flags.servedModelName ?? flags.model;
  const running = await serve({ lm, served, distributions: openDistributions, host: flags.host, port: flags.port, apiKey, log: flags.quiet ? undefined : (line) => console.error(line) });
  // The one line a script waits for: the URL to pass as --model.
  console.log(`serving ${served} (${backend.name}, ${lm.maxLength}-token context; ${full ? 'prompt_logprobs up to 20' : 'prompt_logprobs 0 with probe_token_id'}) at ${running.url}`);
  await new Promise<void>((done) => {
    const stop = () => void running.close().then(async () => {
      await lm.release?.();
      await ((await distributions) as { release?: () => Promise<void> } | undefined)?.release?.();
      done();
    });
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
