/// <reference lib="webworker" />
/**
 * The model worker: loads onnxruntime-web and the model (pipeline/core/lm/ort-lm.ts, the same CausalLM as the CLI's),
 * then answers the page's requests (protocol.ts): explorer analyses through the pipeline's own stages (worker-explorer.ts), golden
 * losses, generation; a bench build adds its requests through worker-extras.ts. Everything heavy happens here, so
 * the page stays responsive.
 */
import { defaultConfig } from '../../pipeline/core/default-config.ts';
import { ToolExecutor } from '../../pipeline/core/stages/execute.ts';
import { generate, type Generation } from '../../pipeline/core/generate/generate.ts';
import type { Dtype } from '../../pipeline/core/lm/dtypes.ts';
import type { CausalLM, HiddenStateLM } from '../../pipeline/core/lm/lm.ts';
import { loadOrtModel, readOnce, type LoadedOrtModel, type ModelSource as CoreModelSource } from '../../pipeline/core/lm/load-model.ts';
import type { OrtModule } from '../../pipeline/core/lm/ort-lm.ts';
import { withDecoderFeeds } from '../../pipeline/core/lm/wrap-decoder.ts';
import { generateWithToolkens } from '../../pipeline/core/toolkens/generate.ts';
import type { KnowledgeBase } from '../../pipeline/core/tools/qa/qa.ts';
import { qa } from '../../pipeline/core/tools/qa/index.ts';
import type { ToolResources } from '../../pipeline/core/tools/spec.ts';
import { chooseBackend, fallbackToWasm, type BackendChoice, type BackendEnv } from './backend.ts';
import { browserParts, onFirstUse, type BrowserParts } from './browser-parts.ts';
import { scoreGolden } from './golden.ts';
import { openSource } from './model-source.ts';
import { loadOrt, sessionOptions, type Ort } from './ort-web.ts';
import type { GenerateParams, GenerateResult, PieceKind, Reply, Request } from './protocol.ts';
import { TOOL_SPECS } from './tool-specs.ts';
import { rankTools } from './tool-ranker.ts';
import { modelDigestOf, toolkenFeatures, toolkenGenerateOptions, toolkenStrip } from './toolkens-jobs.ts';
import { EXTRA_REQUESTS, type LoadedModel } from './worker-extras.ts';
import { analyzeText, fillCallOnly } from './worker-explorer.ts';

declare const self: DedicatedWorkerGlobalScope;

interface Loaded extends LoadedModel {
  /** ?kv-cache=cpu: the decoder's cache in JavaScript even on WebGPU (for comparisons). */
  kvCache?: 'cpu';
  /** The page's weight format; other models (the Inference panel's) load in the same one. */
  dtype: Dtype;
}
let loaded: Loaded | null = null;
let parts: Promise<BrowserParts> | null = null;

const post = (reply: Reply) => self.postMessage(reply);
/** Progress messages of request `id`. */
const progressOf = (id: number) => (stage: string, done: number, total: number) => post({ id, type: 'progress', stage, done, total });

function env(): BackendEnv {
  const nav = self.navigator as WorkerNavigator & { gpu?: BackendEnv['gpu'] };
  return { gpu: nav.gpu, crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: nav.hardwareConcurrency };
}

/**
 * The model's sessions on this backend, by the loading sequence the CLI runs too (core/lm/load-model.ts: the same
 * checks and refusals); `source` says where the folder's files come from.
 */
function createLM(ort: Ort, source: CoreModelSource, dtype: string, choice: BackendChoice, options: { kvCache?: 'cpu'; hiddenStates?: boolean; onProgress?: FileProgress } = {}) {
  const hiddenStates = options.hiddenStates ?? false;
  return loadOrtModel(ort as unknown as OrtModule, source, {
    dtype,
    sessionOptions: sessionOptions(choice.backend),
    onProgress: options.onProgress,
    lm: {
      // WebGPU: the KV cache stays on the device between decoding steps (present.* as gpu-buffer outputs).
      cacheLocation: choice.backend === 'webgpu' && options.kvCache !== 'cpu' ? 'gpu-buffer' : 'cpu',
      // The in-graph log-prob head (a second session with the same weights) stalls the explorer on WebGPU
      // (measured: > 120 s on SwiftShader, where the log-softmax graph path passes the e2e test in ~18 s); WASM uses the head.
      logProbs: hiddenStates ? 'js' : choice.backend === 'webgpu' ? 'graph' : 'head',
      hiddenStates,
    },
  });
}

type FileProgress = (file: string, done: number, total: number) => void;
/** Progress of reading a model file for request `id`, shown under the file's name inside onnx/ (after `prefix`). */
const fileProgress = (id: number, prefix = ''): FileProgress => (file, done, total) =>
  post({ id, type: 'progress', stage: `${prefix}${file.slice('onnx/'.length)}`, done, total });

/**
 * The page's model with the LM head's input h as an extra output (toolkens need h), in a session of its own, made
 * on first use: the page's own session stays as it is (every run of a graph with the output would copy h out).
 * It holds the weights a second time. Scoring is not asked of it (logProbs "js": no scoring graph is built).
 */
let hiddenLM: Promise<HiddenStateLM> | null = null;
function hiddenStateLM(id: number): Promise<HiddenStateLM> {
  hiddenLM ??= (async () => {
    const { ort, source, choice, dtype } = loaded!;
    const { lm } = await createLM(ort, source, dtype, choice, { kvCache: 'cpu', hiddenStates: true, onProgress: fileProgress(id, 'hidden states: onnx/') });
    return lm as unknown as HiddenStateLM;
  })();
  hiddenLM.catch(() => (hiddenLM = null));
  return hiddenLM;
}

async function load(req: Extract<Request, { type: 'load' }>) {
  const t0 = performance.now();
  let choice = await chooseBackend(req.prefer, env());
  // ?threads=N (benchmarks): fewer WASM threads than the default, e.g. 1 on a machine other processes keep busy.
  if (req.threads && req.threads >= 1 && req.threads < choice.threads) {
    choice = { ...choice, threads: req.threads, reason: `${choice.reason} (threads set to ${req.threads})` };
  }
  const ort = await loadOrt(choice.threads, choice.backend);
  const source = openSource(req.source, self.location.href);
  // Read once: a WebGPU failure retries on WASM with the same bytes (the loaded model keeps the plain source).
  const once = readOnce(source);
  const create = () => createLM(ort, once, req.dtype ?? 'fp32', choice, { kvCache: req.kvCache, onProgress: fileProgress(req.id) });
  let created: LoadedOrtModel;
  try {
    created = await create();
  } catch (e) {
    if (choice.backend !== 'webgpu') throw e;
    choice = fallbackToWasm(env(), e);
    try {
      created = await create();
    } catch (again) {
      // onnxruntime-web starts its WASM runtime once per worker: when that start was what failed, the fallback only
      // says "previous call to 'initWasm()' failed" — name the first error too.
      throw new Error(`${again instanceof Error ? again.message : String(again)} (after WebGPU failed: ${e instanceof Error ? e.message : String(e)})`);
    }
  }
  const { lm, model } = created;
  const file = model.file;
  loaded = { ort, choice, lm, source, file, externalData: model.externalData, kvCache: req.kvCache, dtype: model.dtype };
  post({ id: req.id, type: 'progress', stage: 'tools', done: 0, total: 1 });
  const { registry } = await getParts(lm);
  return {
    choice,
    modelId: source.id,
    dtype: model.dtype,
    file,
    loadMs: performance.now() - t0,
    tools: registry.tools.map((t) => ({
      name: t.name,
      description: t.description,
      examples: (t.examples ?? []).map((e) => ({ text: e.text, at: e.at, input: e.input })),
    })),
  };
}

/**
 * Resources fetched when a tool's first call needs them rather than with the model, by tool: the QA knowledge base
 * (kb.json, 2.5 MB, 0.4 MB compressed, its own chunk).
 */
const ON_FIRST_USE: Record<string, () => Promise<ToolResources>> = {
  [qa.name]: async () => ({ kb: (await import('../../pipeline/data/kb.json')).default as unknown as KnowledgeBase }),
};

/** Tools and prompts, made once with the model (their heavy resources on first use: ON_FIRST_USE). */
function getParts(lm: CausalLM) {
  parts ??= Promise.resolve(browserParts({
    lm, resources: {}, specs: TOOL_SPECS.map((spec) => (ON_FIRST_USE[spec.name] ? onFirstUse(spec, ON_FIRST_USE[spec.name]) : spec)),
  }));
  return parts;
}

/** Models other than the page's (the Inference panel's finetuned model), loaded once each on the same backend. */
const otherModels = new Map<string, Promise<CausalLM>>();
let executor: ToolExecutor | null = null;

/** The model at `url` (a folder on the page's origin), or the page's own model (null: the one loaded, from disk too). */
function modelAt(url: string | null, id: number): Promise<CausalLM> {
  if (url === null) return Promise.resolve(loaded!.lm);
  const base = url.replace(/\/$/, '');
  if (base === loaded!.source.id) return Promise.resolve(loaded!.lm);
  let lm = otherModels.get(base);
  if (!lm) {
    // The same checks as the page's model, in the page's weight format, with its external data.
    const source = openSource({ kind: 'url', url: base }, self.location.href);
    lm = createLM(loaded!.ort, source, loaded!.dtype, loaded!.choice, { kvCache: loaded!.kvCache, onProgress: fileProgress(id) }).then((m) => m.lm);
    lm.catch(() => otherModels.delete(base));
    otherModels.set(base, lm);
  }
  return lm;
}

/**
 * `lm` whose decoder reports every token fed after the prompt (chosen ones and inserted results: what
 * generate()'s maxNewTokens counts), for the Inference panel's "tokens generated" line. Everything else is `lm`'s own
 * (core/lm/wrap-decoder.ts), so a HiddenStateLM stays one.
 */
function countingDecoder<L extends CausalLM>(lm: L, onTokens: (fed: number) => void): L {
  return withDecoderFeeds(lm, (fed) => onTokens(fed));
}

/** The page's model's digest (the CLI's), computed once per worker; request `id` shows its progress. */
const pageDigest = (id: number) => modelDigestOf(loaded!.source, (done, total) => post({ id, type: 'progress', stage: 'model digest', done, total }));

/**
 * The Inference panel's generation, streamed to the page piece by piece: the paper's inference with live tools (call
 * text and results marked), or with toolkens (params.toolkens: the CLI's `generate --toolkens`, on the page's own
 * model with hidden states, once the file's digest is the model's; each call a note where its toolken fired).
 */
async function generateRequest(id: number, params: GenerateParams): Promise<GenerateResult> {
  const t0 = performance.now();
  const onPiece = (kind: PieceKind, text: string) => post({ id, type: 'piece', kind, text });
  // Toolkens: checked against the page's model (its digest, computed once per worker) before anything is loaded.
  const toolkenOptions = params.toolkens ? toolkenGenerateOptions(params.toolkens, params, await pageDigest(id), TOOL_SPECS, onPiece) : null;
  const model = toolkenOptions ? await hiddenStateLM(id) : await modelAt(params.modelUrl, id);
  // Where the decoder's KV cache lived during this generation (OrtCausalLM.cacheStats, counted per forward pass).
  const stats = model.cacheStats ?? null;
  const before = stats ? { ...stats } : null;
  const lm = countingDecoder(model, (fed) =>
    post({ id, type: 'progress', stage: 'tokens generated', done: Math.min(fed, params.maxNewTokens), total: params.maxNewTokens }));
  // The pipeline's registry and executor limits (timeout as in annotate), shared across requests.
  executor ??= new ToolExecutor((await getParts(loaded!.lm)).registry, { timeoutMs: defaultConfig().toolTimeoutMs });
  let g: Generation;
  if (toolkenOptions) g = await generateWithToolkens(lm as HiddenStateLM, executor, params.prompt, toolkenOptions);
  else {
    g = await generate(lm, params.tools ? executor : null, params.prompt, {
      tools: params.tools, topK: params.topK, maxNewTokens: params.maxNewTokens, doc: { id: 'inference', date: params.date },
      onText: (piece) => onPiece(piece.kind, piece.text),
    });
  }
  return {
    prompt: g.prompt, text: g.text,
    calls: g.calls.map(({ tool, input, result, error }) => ({ tool, input, result, error })),
    backend: loaded!.choice.backend, modelId: lm.id, ms: performance.now() - t0,
    cache: stats && before ? { forwards: stats.forwards - before.forwards, onDevice: stats.onDevice - before.onDevice } : undefined,
  };
}

async function handle(req: Request): Promise<unknown> {
  if (req.type === 'load') return load(req);
  if (req.type === 'rankTools') return rankTools(req.text, req.withCatalog);
  if (!loaded) throw new Error('model not loaded');
  if (req.type === 'analyze') return analyzeText(await getParts(loaded.lm), req.params, progressOf(req.id));
  if (req.type === 'fillCallOnly') return fillCallOnly(await getParts(loaded.lm), req.params, progressOf(req.id));
  if (req.type === 'golden') return scoreGolden(loaded.lm, req.cases);
  if (req.type === 'generate') return generateRequest(req.id, req.params);
  if (req.type === 'modelDigest') {
    return { digest: await pageDigest(req.id), model: loaded.source.id, dtype: loaded.dtype };
  }
  if (req.type === 'toolkenStrip') return toolkenStrip(await hiddenStateLM(req.id), req.toolkens, req.text, req.bias);
  if (req.type === 'toolkenFeatures') {
    return toolkenFeatures(await hiddenStateLM(req.id), req.texts, req.tools, req, (done, total) => post({ id: req.id, type: 'progress', stage: 'windows', done, total }));
  }
  const extra = EXTRA_REQUESTS[req.type] as ((r: Request, l: LoadedModel) => Promise<unknown>) | undefined;
  if (extra) return extra(req, loaded);
  throw new Error(`unknown request ${(req as Request).type} (bench requests need a bench build: pipeline/bench/bench-build.ts)`);
}

// Requests run one at a time, in order: the model is one resource.
let queue: Promise<unknown> = Promise.resolve();
self.addEventListener('message', (event: MessageEvent<Request>) => {
  const req = event.data;
  queue = queue.then(() =>
    handle(req).then(
      (value) => post({ id: req.id, type: 'result', value }),
      (e: unknown) => post({ id: req.id, type: 'error', message: e instanceof Error ? e.message : String(e) }),
    ),
  );
});
