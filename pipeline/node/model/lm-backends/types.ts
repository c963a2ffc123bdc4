/**
 * The LM backend registry's shapes (registry.ts holds the list): what a backend is, what opening one takes, and what
 * `--model` resolves to.
 */
import type { Device } from '../../../core/lm/devices.ts';
import type { CausalLM } from '../../../core/lm/lm.ts';
import type { LoadModelOptions } from '../load-model.ts';
import type { LlamaGelu } from './llama-gelu.ts';
import type { HttpClientOptions } from './server/http-client.ts';

/** What every command passes when it opens the model. */
export interface OpenLMOptions extends Omit<LoadModelOptions, 'device'> {
  device?: Device;
  /** Server models: the folder (or org/name) whose tokenizer.json and config.json are the served model's. */
  tokenizer?: string;
  /** Server models: the name the server knows the model by (default: the only one it serves). */
  servedModel?: string;
  /** Server models: retries, timeouts, caps (the key is read from TOOLFORMER_API_KEY, never a flag). */
  server?: HttpClientOptions;
  /** GGUF models: GELU through ggml-cpu's float16 table (the prebuilt binaries) or exact (a local build; llama-gelu.ts). @default 'table' */
  llamaGelu?: LlamaGelu;
}

/** What a child process needs to open the run's model as its parent did (pool workers, queue processors). */
export interface ModelOpen {
  /** The folder or file (resolved), or the server URL. */
  model: string;
  dtype?: LoadModelOptions['dtype'];
  tokenizer?: string;
  servedModel?: string;
  server?: HttpClientOptions;
  llamaGelu?: LlamaGelu;
}

/** A loaded LM; release() frees what the backend holds (sessions, a native context, connections). */
export type LoadedLM = CausalLM & { release?(): Promise<void> };

/** What `--model` names, resolved: how a run records it and what identifies its weights. */
export interface ModelRef {
  backend: LMBackend;
  /** As a run's config.json records it (a path relative to the working directory, org/name@revision, a URL). */
  recorded: string;
  /** The folder or file holding the weights (ONNX, GGUF); absent for a served model. */
  path?: string;
  /**
   * SHA-256 identifying the model: every file of the folder or the file (a queue run's identity: workers must load
   * the same bytes); for a served model, the URL, the served name and its tokenizer's files.
   */
  digest(): string;
  /**
   * SHA-256 over what the probes' verdicts depend on (node/run/probe-cache.ts); undefined: verdicts are not cached (a
   * served model's weights cannot be hashed from here).
   */
  probeDigest(): string | undefined;
}

export interface LMBackend {
  name: string;
  /** What `--model` names for it, for help and errors. */
  names: string;
  /** Whether `model` (the flag's value) is this backend's. */
  claims(model: string): boolean;
  /** The `--device` values it runs on; the first is its default. */
  devices: readonly Device[];
  open(model: string, options: OpenLMOptions): Promise<LoadedLM>;
  ref(model: string, options: OpenLMOptions): Promise<ModelRef>;
}
