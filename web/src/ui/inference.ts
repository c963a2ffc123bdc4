/**
 * Inference: the finetuned model generates in the worker with live tools (pipeline/core/generate.ts, the CLI's
 * loop): a call starts when " [" is among the top k tokens, runs at "->", and its result is inserted. The call
 * text and the inserted result are highlighted as they stream in. Tools on/off and k are the paper's knobs.
 * URL parameters: ?infer-model=<dir under /models/> (default toolformer).
 */
import type { ModelClient } from '../model-client.ts';
import { h } from './dom.ts';

export const INFERENCE_EXAMPLES = [
  'The capital of Peru is',
  'The chemical symbol of Carbon is',
  'Tom had 37 apples and got 48 more. In all, Tom has',
  'The letter is dated March 14, 2019. It was written on a',
  'The old dog slept by the fire while the children',
];

export function mountInference(root: HTMLElement, client: ModelClient, ready: Promise<unknown>, modelName: string): void {
  const modelUrl = new URL(`./models/${modelName}/`, location.href).href;
  const prompt = h('textarea', { id: 'inf-prompt', 'data-testid': 'inf-prompt', rows: 2 }) as HTMLTextAreaElement;
  prompt.value = INFERENCE_EXAMPLES[0];
  const examples = h('select', { id: 'inf-example', 'data-testid': 'inf-example' },
    ...INFERENCE_EXAMPLES.map((e) => h('option', { value: e }, e))) as HTMLSelectElement;
  examples.addEventListener('change', () => { prompt.value = examples.value; });
  const tools = h('input', { type: 'checkbox', id: 'inf-tools', 'data-testid': 'inf-tools', checked: true }) as HTMLInputElement;
  const topK = h('input', { type: 'number', id: 'inf-top-k', 'data-testid': 'inf-top-k', min: 1, max: 100, step: 1, value: 10 }) as HTMLInputElement;
  const date = h('input', { type: 'date', id: 'inf-date', 'data-testid': 'inf-date', value: new Date().toISOString().slice(0, 10) }) as HTMLInputElement;
  const button = h('button', { type: 'button', 'data-testid': 'inf-run', disabled: true }, 'Generate') as HTMLButtonElement;
  const output = h('div', { class: 'annotated generation', 'data-testid': 'inf-output', 'aria-live': 'polite' });
  const status = h('p', { class: 'muted', 'data-testid': 'inf-status' }, 'waiting for the model…');
  const callsList = h('ul', { 'data-testid': 'inf-calls' });

  const run = async () => {
    button.disabled = true;
    output.replaceChildren(h('span', { class: 'prompt' }, prompt.value));
    callsList.replaceChildren();
    status.textContent = `generating with ${modelName}…`;
    let current: HTMLElement | null = null;
    let currentKind = '';
    try {
      const r = await client.request('generate', {
        params: {
          modelUrl, prompt: prompt.value, tools: tools.checked, topK: Math.max(1, Number(topK.value) || 10),
          maxNewTokens: 48, date: date.value || new Date().toISOString().slice(0, 10),
        },
      }, (stage, done, total) => {
        status.textContent = stage === 'model.onnx' ? `loading ${modelName}: ${(done / 1e6).toFixed(1)} of ${(total / 1e6).toFixed(1)} MB` : stage;
      }, (kind, text) => {
        if (!current || kind !== currentKind) {
          const attrs = kind === 'call' ? { class: 'call', 'data-testid': 'inf-call' }
            : kind === 'result' ? { class: 'result', 'data-testid': 'inf-result' } : { class: 'gen' };
          current = h(kind === 'text' ? 'span' : 'mark', attrs);
          currentKind = kind;
          output.append(current);
        }
        current.textContent += text;
      });
      for (const c of r.calls) {
        callsList.append(h('li', {}, h('code', {}, `${c.tool}(${c.input})`), ' → ',
          c.result !== undefined ? h('code', { 'data-testid': 'inf-call-result' }, c.result) : h('span', { class: 'error' }, c.error ?? 'no result')));
      }
      status.textContent = `${r.calls.length} call${r.calls.length === 1 ? '' : 's'} · ${r.backend} · ${(r.ms / 1000).toFixed(1)} s`;
      status.dataset.done = 'true';
    } catch (e) {
      status.textContent = `failed: ${e instanceof Error ? e.message : String(e)}`;
      status.classList.add('error');
    } finally {
      button.disabled = false;
    }
  };
  button.addEventListener('click', () => { delete status.dataset.done; void run(); });

  root.append(
    h('h2', { id: 'inf-title' }, 'Inference with live tools'),
    h('p', { class: 'explain' }, `The finetuned model (models/${modelName}) writes a continuation. Whenever " [" is among its top-k next
      tokens it starts a call; at "->" the call runs here, with the explorer's tools, and the result is inserted, then
      the model goes on. One call per input, as in the paper.`),
    h('label', { for: 'inf-example' }, 'Example', examples),
    h('label', { for: 'inf-prompt' }, 'Prompt', prompt),
    h('div', { class: 'grid' },
      h('label', { class: 'inline', for: 'inf-tools' }, tools, 'tools on'),
      h('label', { for: 'inf-top-k' }, 'top-k for " ["', topK),
      h('label', { for: 'inf-date' }, "Today's date", date),
      button),
    output,
    status,
    callsList,
  );
  ready.then(() => {
    button.disabled = false;
    status.textContent = 'ready';
  }, () => { status.textContent = 'the model worker failed to load'; });
}
