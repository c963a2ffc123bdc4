/// <reference lib="webworker" />
/**
 * The model worker: loads onnxruntime-web and the model, then answers the page's requests (protocol.ts).
 * Everything heavy (wasm compile, session creation, forward passes, sampling, tools) happens here, so the page
 * stays responsive.
 */
import { chooseBackend, fallbackToWasm, type BackendChoice, type BackendEnv } from './backend.ts';
import { loadOrt, sessionOptions, type Ort } from './ort-web.ts';
import { rawForwardThroughput } from './raw-forward.ts';
import type { Reply, Request } from './protocol.ts';

declare const self: DedicatedWorkerGlobalScope;

interface Loaded {
  ort: Ort;
  choice: BackendChoice;
  session: Awaited<ReturnType<Ort['InferenceSession']['create']>>;
  modelId: string;
}
let loaded: Loaded | null = null;

const post = (reply: Reply) => self.postMessage(reply);

function env(): BackendEnv {
  const nav = self.navigator as WorkerNavigator & { gpu?: BackendEnv['gpu'] };
  return { gpu: nav.gpu, crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: nav.hardwareConcurrency };
}

/** GET a same-origin file as bytes, reporting progress by Content-Length. */
async function fetchBytes(url: string, onProgress: (done: number, total: number) => void): Promise<Uint8Array> {
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`GET ${url}: HTTP ${res.status}`);
  // A static server's SPA fallback answers a missing file with index.html.
  if (res.headers.get('Content-Type')?.startsWith('text/html')) throw new Error(`GET ${url}: not found (got HTML)`);
  const total = Number(res.headers.get('Content-Length')) || 0;
  const parts: Uint8Array[] = [];
  let done = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    parts.push(value);
    done += value.length;
    onProgress(done, total || done);
  }
  const out = new Uint8Array(done);
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

async function load(req: Extract<Request, { type: 'load' }>): Promise<unknown> {
  const t0 = performance.now();
  let choice = await chooseBackend(req.prefer, env());
  const ort = await loadOrt(choice.threads);
  const base = req.modelUrl.replace(/\/$/, '');
  const bytes = await fetchBytes(`${base}/onnx/model.onnx`, (done, total) =>
    post({ id: req.id, type: 'progress', stage: 'model.onnx', done, total }));
  post({ id: req.id, type: 'progress', stage: 'session', done: 0, total: 1 });
  let session;
  try {
    session = await ort.InferenceSession.create(bytes, sessionOptions(choice.backend));
  } catch (e) {
    if (choice.backend !== 'webgpu') throw e;
    choice = fallbackToWasm(env(), e);
    session = await ort.InferenceSession.create(bytes, sessionOptions('wasm'));
  }
  loaded = { ort, choice, session, modelId: base };
  return { choice, modelId: base, loadMs: performance.now() - t0 };
}

async function handle(req: Request): Promise<unknown> {
  if (req.type === 'load') return load(req);
  if (!loaded) throw new Error('model not loaded');
  if (req.type === 'bench') {
    const fwd = await rawForwardThroughput(loaded.ort, loaded.session, req.batch, req.length, req.repeats);
    return { backend: loaded.choice.backend, forwardTokensPerSecond: fwd, scoreTokensPerSecond: NaN, batch: req.batch, length: req.length, repeats: req.repeats };
  }
  throw new Error(`unsupported request ${req.type}`);
}

self.addEventListener('message', (event: MessageEvent<Request>) => {
  const req = event.data;
  handle(req).then(
    (value) => post({ id: req.id, type: 'result', value }),
    (e: unknown) => post({ id: req.id, type: 'error', message: e instanceof Error ? e.message : String(e) }),
  );
});
