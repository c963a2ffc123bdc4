/**
 * Page entry: mounts the panels and starts the model worker. URL parameters:
 *   ?backend=auto|webgpu|wasm   (default auto: WebGPU when an adapter exists)
 *   ?model=default|tiny-random  (a directory under /models/)
 */
import type { BackendPreference } from './backend.ts';
import { ModelClient } from './model-client.ts';
import { mountRunViewer } from './ui/run-viewer.ts';
import { mountWorkedExample } from './ui/worked-example.ts';

const params = new URLSearchParams(location.search);
const prefer = (['auto', 'webgpu', 'wasm'].includes(params.get('backend') ?? '') ? params.get('backend') : 'auto') as BackendPreference;
const model = /^[\w-]+$/.test(params.get('model') ?? '') ? (params.get('model') as string) : 'default';

const $ = (sel: string) => document.querySelector(sel) as HTMLElement;

mountWorkedExample($('#worked-example'));
mountRunViewer($('#run-viewer'));

const client = new ModelClient();
const progress = $('#load-progress') as HTMLProgressElement;
const status = $('[data-testid="load-status"]');

async function start(): Promise<void> {
  progress.hidden = false;
  status.textContent = `loading model "${model}"…`;
  const loaded = await client.request('load', { modelUrl: new URL(`./models/${model}/`, location.href).href, prefer }, (stage, done, total) => {
    progress.max = total || 1;
    progress.value = done;
    status.textContent = `loading ${stage}: ${Math.round((100 * done) / (total || 1))}%`;
  });
  progress.hidden = true;
  $('[data-testid="backend"]').textContent = `backend: ${loaded.choice.backend}`;
  $('[data-testid="backend-reason"]').textContent = loaded.choice.reason;
  status.textContent = `model ${loaded.modelId} ready in ${(loaded.loadMs / 1000).toFixed(1)} s`;
  document.body.dataset.ready = 'true';
  // Test and benchmark hook: the page's own client, for the browser tests (no UI).
  (globalThis as { toolformer?: unknown }).toolformer = { client, loaded };
}

start().catch((e: unknown) => {
  status.textContent = `model failed to load: ${e instanceof Error ? e.message : String(e)}`;
  status.classList.add('error');
  document.body.dataset.ready = 'error';
});
