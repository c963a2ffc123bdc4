/**
 * The command line's shared option parsers and options (cli.ts and its command groups, cli-*-commands.ts).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { DTYPE_FILES, DTYPES } from '../../core/lm/dtypes.ts';
import { DEVICES } from '../../core/lm/devices.ts';
import { CALL_PLACEMENTS } from '../../core/run-defaults.ts';
import { DEFAULT_RETRIEVER, RETRIEVERS } from '../../core/retrieval/retriever.ts';
import { CATALOGS } from '../../core/tools/catalogs/index.ts';
import { GELU_EXACT_BUILD_COMMAND, LLAMA_GELUS, type LlamaGelu } from '../model/lm-backends/llama-gelu.ts';
import { LM_BACKENDS } from '../model/lm-backends/registry.ts';
import { DEFAULT_MODEL } from '../system/package-paths.ts';

export const number = (name: string) => (value: string) => {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x)) throw new InvalidArgumentError(`${name} must be a number`);
  return x;
};
/** `--tau-f-floor`: nats, or `tau-f` (each tool's own τ_f: run-plan.ts planConfig turns it into the number). */
export const tauFFloorFlag = (value: string): number | 'tau-f' => (value.trim() === 'tau-f' ? 'tau-f' : number('--tau-f-floor')(value));
export const integer = (name: string) => (value: string) => {
  const x = number(name)(value);
  if (!Number.isInteger(x) || x < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return x;
};

/** The catalogs `--catalog` knows, for help: "mathjs — mathjs's documented functions …". */
export const catalogHelp = CATALOGS.map((c) => `${c.name} — ${c.description}`).join('; ');
/** The retrievers `--retriever` knows, the default marked. */
export const retrieverHelp = RETRIEVERS.map((r) => (r === DEFAULT_RETRIEVER ? `${r} (default)` : r)).join(', ');

/** `--dtype`: which of the model's ONNX files, by Transformers.js's dtype names (core/lm/dtypes.ts, the web's `?dtype=` too). */
export const dtypeOption = () =>
  new Option('--dtype <dtype>', `ONNX file under onnx/: ${DTYPES.map((d) => `${d} ${DTYPE_FILES[d]}`).join(', ')}`)
    .choices(DTYPES)
    .default('fp32');

/** `--llama-gelu`: a .gguf model's GELU on the CPU (lm-backends/llama-gelu.ts); exact is recorded in config.json. */
export const llamaGeluOption = () =>
  new Option('--llama-gelu <how>', `a .gguf model on the CPU: GELU through ggml-cpu's float16 table (table: node-llama-cpp's prebuilt binaries) or in float32 (exact: GPT-2 then matches ONNX Runtime within 1e-4 nats; a local llama.cpp build, made once by \`${GELU_EXACT_BUILD_COMMAND}\`; recorded in config.json)`)
    .choices(LLAMA_GELUS)
    .default('table');

/** `--model`'s help: what each LM backend is named by (lm-backends/registry.ts, the only list); `fallback` the default, if any. */
export const modelHelp = (fallback?: string) => `the LM: ${LM_BACKENDS.map((b) => b.names).join('; or ')}${fallback === undefined ? '' : ` (default ${fallback})`}`;

/** `--model` for the commands that open any LM backend (annotate, score, serve, worker); `lead` goes before the list. */
export const modelOption = (lead = '') => new Option('--model <model>', `${lead}${modelHelp('models/default')}`).default(DEFAULT_MODEL);

/**
 * `--model` for any LM backend with its own default or none (generate, eval, loss): `role` after the help, `fallback`
 * the default (none: the flag is required).
 */
export function anyModelOption(role = '', fallback?: string): Option {
  const option = new Option('--model <model>', `${modelHelp(fallback)}${role}`);
  return fallback === undefined ? option.makeOptionMandatory() : option.default(fallback);
}

/**
 * `--model` for the commands that run an ONNX model in-process for its hidden states (retrieve, toolkens train): its
 * folder or Hub id; `role` after the help, `fallback` the default (none: the flag is required).
 */
export function onnxModelOption(role = '', fallback?: string): Option {
  const option = new Option('--model <dir|org/name>', `Hugging Face ONNX causal-LM directory (or Hub id)${role}`);
  return fallback === undefined ? option.makeOptionMandatory() : option.default(fallback);
}

/** The model's options of a command that opens any LM backend: --model, --dtype, --device (unless `device` is false), and the served model's. */
export const lmOptions = ({ modelLead = '', device = true } = {}) => [
  modelOption(modelLead),
  dtypeOption(),
  ...(device ? [deviceOption()] : []),
  llamaGeluOption(),
  ...servedModelOptions(),
];

/**
 * A command's action that imports the command's module on use, so a bad flag fails in a second, before the pipeline's
 * modules load: `load` resolves to the function that takes the command's arguments and options (commander passes
 * the Command itself last; it is not passed on).
 */
export const onUse = <A extends unknown[]>(load: () => Promise<(...args: A) => unknown>) =>
  async (...args: [...A, Command]): Promise<void> => {
    await (await load())(...(args.slice(0, -1) as A));
  };

/** Adds `options` to `command`, in order. */
export function addOptions(command: Command, options: Option[]): Command {
  for (const option of options) command.addOption(option);
  return command;
}

/** A served model's `--tokenizer` and `--served-model` (lm-backends/server); the key comes from TOOLFORMER_API_KEY. */
export const servedModelOptions = () => [
  new Option('--tokenizer <dir|org/name>', "with an http(s)://…/v1 --model: the served model's folder, whose tokenizer.json and config.json are read here (ids are sent, never text); the API key, if any, comes from $TOOLFORMER_API_KEY"),
  new Option('--served-model <name>', 'with an http(s)://…/v1 --model: the name the server serves it under (default: the only one it lists)'),
  new Option('--server-timeout <s>', 'with an http(s)://…/v1 --model: seconds one request may take, its whole answer included (retried on refused connections, 429 and 5xx)').argParser(number('--server-timeout')).default(300),
  new Option('--server-max-response-mb <n>', 'with an http(s)://…/v1 --model: the most MiB read from one answer').argParser(number('--server-max-response-mb')).default(256),
];

/** The served-model flags as commander parses them (servedModelOptions). */
export interface ServedModelFlags {
  /** A served model's tokenizer folder and name (lm-backends/registry.ts). */
  tokenizer?: string;
  servedModel?: string;
  /** Seconds one request may take. @default 300 */
  serverTimeout?: number;
  /** The most MiB read from one answer. @default 256 */
  serverMaxResponseMb?: number;
}

/** The flags lmOptions adds besides --model, --dtype and --device: the served model's and --llama-gelu. */
export interface BackendFlags extends ServedModelFlags {
  llamaGelu?: LlamaGelu;
}

/** They as lm-backends' OpenLMOptions (--llama-gelu only when exact: the table build is what a run without it opens). */
export function backendFlags(flags: BackendFlags) {
  return { ...servedModelFlags(flags), ...(flags.llamaGelu === 'exact' ? { llamaGelu: 'exact' as const } : {}) };
}

/** The served-model flags as lm-backends' OpenLMOptions. */
export function servedModelFlags(flags: ServedModelFlags) {
  return {
    tokenizer: flags.tokenizer,
    servedModel: flags.servedModel,
    server: { timeoutMs: (flags.serverTimeout ?? 300) * 1000, maxResponseBytes: Math.floor((flags.serverMaxResponseMb ?? 256) * 2 ** 20) },
  };
}

/** `--device`: where the LM runs (core/lm/devices.ts; node/model/device.ts maps it to ONNX Runtime's execution providers). */
export const deviceOption = () =>
  new Option('--device <device>', 'where the LM runs: cpu, webgpu (ONNX: a GPU through Vulkan, Metal or D3D12), cuda (ONNX: needs onnxruntime-node\'s CUDA provider, pipeline/node/README.md, Devices; GGUF: llama.cpp\'s), vulkan or metal (GGUF), auto (the backend\'s choice; a served model runs where the server runs it)')
    .choices(DEVICES)
    .default('cpu');

/** `--call-placement` (annotate, score): where a call sits when its losses are scored; absent: prefix, not recorded. */
export const callPlacementOption = () =>
  new Option('--call-placement <where>', "where a call sits when its losses are scored: prefix (before the window, the paper's, for a model that never saw a call; the default) or inline (at its position as the output writes it, for a model finetuned on calls; x_{1:i−1} forwarded once per position)").choices(CALL_PLACEMENTS);

/** A repeatable option's values, in order. */
export const collect = (value: string, previous: string[]) => [...previous, value];

/** A TCP port, 0–65535 (`name` is the flag a bad value is reported under). */
export const port = (name: string) => (value: string) => {
  const x = integer(name)(value);
  if (x > 65535) throw new InvalidArgumentError(`${name} must be a port, 0–65535`);
  return x;
};

/** `--host` (serve, mcp --http): the address a server listens on, 127.0.0.1 when absent; `when` says when it applies. */
export const listenHostOption = (when = '') =>
  new Option('--host <address>', `the address to listen on${when} (default 127.0.0.1: this machine only; 0.0.0.0: the network)`);

/** generate's and eval's ToolkenGPT options: `--toolkens <file>` (what `calls` says comes from them), `--toolken-bias`, `--toolken-mode`. */
const toolkenOptions = (calls: string) => [
  new Option('--toolkens <file>', `ToolkenGPT toolkens (toolformer toolkens train): ${calls} come from toolkens, not " ["`),
  new Option('--toolken-bias <x>', 'added to the toolken logits (the paper: 3–10)').argParser(number('--toolken-bias')).default(0),
  new Option('--toolken-mode <mode>', 'tool mode: free (the tool\'s prompt until ")") or constrained (the model picks among the proposer\'s calls)').choices(['free', 'constrained']).default('free'),
];

/**
 * The decoding options generate and eval share (the paper's inference with live tools): --model (any LM backend with
 * a KV-cache decoder; `modelRole` after its help, `modelDefault` its default), --device, --llama-gelu, --max-new-tokens, --top-k, --temperature
 * (`sampled` says what is sampled) and the toolken options (`toolkenCalls` says which calls come from toolkens).
 */
export const decodingOptions = (o: {
  modelRole: string; modelDefault: string; maxNewTokens: number; temperature: number; sampled?: string; toolkenCalls: string;
}) => [
  anyModelOption(o.modelRole, o.modelDefault),
  deviceOption(),
  llamaGeluOption(),
  maxNewTokensOption(o.maxNewTokens),
  callTopKOption(),
  temperatureOption(o.temperature, o.sampled),
  ...toolkenOptions(o.toolkenCalls),
];

/** generate's and eval's `--top-k`: the paper's call threshold (annotate's `--top-k` is its sampler's, another thing). */
const callTopKOption = () =>
  new Option('--top-k <n>', 'a call starts when " [" is among the k most likely tokens').argParser(integer('--top-k')).default(10);

/** `--max-new-tokens` (generate, eval). */
const maxNewTokensOption = (fallback: number) =>
  new Option('--max-new-tokens <n>', 'tokens after the prompt, inserted results included').argParser(integer('--max-new-tokens')).default(fallback);

/** `--temperature` (generate, eval): `of` says what is sampled. */
const temperatureOption = (fallback: number, of = 'sampling') =>
  new Option('--temperature <x>', `${of} temperature (0: greedy)`).argParser(number('--temperature')).default(fallback);

/** `--seed` (annotate, generate, toolkens train, finetune): `of` says what it seeds. */
export const seedOption = (fallback: number, of = 'random seed') => new Option('--seed <n>', of).argParser(integer('--seed')).default(fallback);

/** `--quiet`: `what` says what goes quiet. */
export const quietOption = (what = 'no progress') => new Option('--quiet', what);

/** `--tools <list>` (annotate, mcp, retrieve, toolkens train): `which` says which tools and the default. */
export const toolsOption = (which: string) => new Option('--tools <list>', `comma-separated tools${which}`);

/** `--catalog <name>` (annotate, mcp, retrieve): `how` says how its tools are used; the catalogs are listed after it. */
export const catalogOption = (how: string) => new Option('--catalog <name>', `${how}. Catalogs: ${catalogHelp}`);

/** `--retriever <name>` (annotate, retrieve): `lead` goes before the list. */
export const retrieverOption = (lead = '') =>
  new Option('--retriever <name>', `${lead}${retrieverHelp} (fusion: BM25 with WordNet expansion + dense, by reciprocal rank; vectors: GloVe word vectors; vector-fusion: expanded + vectors)`);

/** `--mcp <server>` (annotate, retrieve), repeatable. */
export const mcpOption = () =>
  new Option('--mcp <server>', "add an MCP server's tools: a command (run without a shell, stdio) or an http(s) URL (repeatable)").argParser(collect).default([]);
