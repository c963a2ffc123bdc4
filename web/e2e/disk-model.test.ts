/**
 * "Your own model" in the real browser (headless Chromium): a replica folder in the Hugging Face layout, written at
 * test time into a temporary directory (fp32 and q4f16, weights as external data: model*.onnx + model*.onnx_data,
 * announced in config.json), is opened through the page's directory input (playwright setInputFiles on the folder, as
 * a user picks it). The page must name the dtype and the backend, the explorer must score the Calculator's worked
 * example on it, and the losses must equal the Node pipeline's on the same files (loadModel + scoreGolden) within
 * the dtype's tolerance; choosing the other dtype reloads. On WebGPU (SwiftShader here, a software adapter) the
 * Inference panel's generation keeps the KV cache on the GPU (gpu-buffer outputs, every step) and gives the same
 * greedy text, tool call and inserted result as WASM — on a replica of the finetuned models/toolformer (2 layers,
 * 7.5 MB): a random-weight model's near-tied logits let the two backends' float rounding pick different tokens after
 * ~40 steps (seen on tiny-llama), a trained model's greedy choices are clear.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dtype } from '../../pipeline/core/lm/dtypes.ts';
import { loadModel } from '../../pipeline/node/model/load-model.ts';
import { writeReplicas } from '../../pipeline/onnx-export/replicas.ts';
import type { GoldenResult } from '../src/analysis-types.ts';
import { GOLDEN_CASES, scoreGolden } from '../src/golden.ts';
import { openPage, skipWithoutChromium, textOf, scoreGoldenInPage, FUNNEL, withBrowser } from './browser.ts';
import { repoRoot } from './serve.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { expectCleanPage, servedForSuite } from './suite.ts';

/** Browser against Node, nats: fp32 measured ~1e-6 (web/README.md); q4f16 has float16 logits (e2e/replicas.test.ts). */
const TOLERANCE: Partial<Record<Dtype, number>> = { fp32: 1e-3, q4f16: 1e-2 };
/** The explorer shows losses to 3 decimals. */
const SHOWN = 5e-4;

const FOLDER_NAME = 'tiny-llama-replica';
const CALCULATOR = GOLDEN_CASES.findIndex((c) => c.tool === 'Calculator');

let root: string;
let folder: string;
/** A replica of the finetuned models/toolformer (fp32, external data), for the generation test. */
let trained: string;
const nodeGolden: Partial<Record<Dtype, GoldenResult[]>> = {};


/** Opens the folder through the directory input and waits until the page's model is that folder's, loaded. */
async function openFolder(page: Page, path: string): Promise<void> {
  await page.setInputFiles('[data-testid="model-folder"]', path);
  await waitWhileProgressing(page, () => document.body.dataset.ready === 'error' || (document.body.dataset.ready === 'true' && document.body.dataset.model?.startsWith('disk:')));
  expect(await page.evaluate(() => document.body.dataset.ready), await textOf(page, 'load-status')).toBe('true');
}

/** Explorer settings that score nothing (Calculator's pre-filter skips a text without numbers): the explorer's re-run
 * on the opened model stays out of the way of what a test measures (all tools on SwiftShader take minutes). */
const QUIET_EXPLORER = 'tools=Calculator&text=Hello&own=&k=1&m=0&control=0';

/** Waits for an explorer run newer than `after` (its data-done id) to finish; returns its id. */
async function explorerDone(page: Page, after: string | null): Promise<string> {
  await waitWhileProgressing(
    page,
    (prev) => {
      const done = document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done');
      return done && done !== prev ? done : null;
    },
    after,
  );
  return (await page.getAttribute('[data-testid="ex-status"]', 'data-done'))!;
}

/** The explorer's row of the user's own call: L_a, L_b, L_c as shown. */
async function ownRowLosses(page: Page): Promise<{ noCall: number; callOnly: number; withResult: number }> {
  const cells = await page.$$eval('[data-testid^="ex-row-"]', (rows) =>
    rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent ?? '')).find((c) => c[2] === 'yours') ?? null);
  if (!cells) throw new Error('the explorer shows no row for the own call');
  const [noCall, callOnly, withResult] = cells.slice(5, 8).map(Number);
  return { noCall, callOnly, withResult };
}

function expectClose(browser: GoldenResult[], node: GoldenResult[], tolerance: number): void {
  expect(browser).toHaveLength(node.length);
  browser.forEach((b, i) => {
    for (const key of ['noCall', 'callOnly', 'withResult'] as const) {
      expect(Math.abs(b.losses[key] - node[i].losses[key]), `case ${i} (${GOLDEN_CASES[i].tool}) ${key}`).toBeLessThan(tolerance);
    }
  });
}

describe.skipIf(skipWithoutChromium('a model folder opened from disk, in headless Chromium'))('a model folder opened from disk, in headless Chromium', () => {
  const served = servedForSuite('disk-model');

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'disk-model-'));
    folder = join(root, FOLDER_NAME);
    await writeReplicas(folder, { dtypes: ['fp32', 'q4f16'], externalData: true });
    trained = join(root, 'toolformer-replica');
    await writeReplicas(trained, { dtypes: ['fp32'], externalData: true, from: join(repoRoot, 'models/toolformer') });
    for (const dtype of ['fp32', 'q4f16'] as const) {
      const lm = await loadModel(folder, { dtype });
      nodeGolden[dtype] = await scoreGolden(lm, GOLDEN_CASES);
      await lm.release();
    }
  }, TEST_CAP_MS);

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('opens the folder on WASM: dtype and backend shown, the explorer scores the Calculator example as Node does, q4f16 too', async () => {
    expect(CALCULATOR).toBeGreaterThanOrEqual(0);
    const example = GOLDEN_CASES[CALCULATOR];
    await withBrowser({ webgpu: false }, async (browser) => {
      // The page starts on the small bundled tiny-random; the explorer is set to the Calculator's worked example.
      const explorer = `tools=Calculator&k=2&m=0&text=${encodeURIComponent(example.text)}&own=${encodeURIComponent(`Calculator|${example.input}|${example.at}`)}`;
      const { page, errors, foreign } = await openPage(browser, `${served.url}?model=tiny-random&backend=wasm&${explorer}`);
      await waitWhileProgressing(page, () => document.body.dataset.ready === 'true');
      const first = await explorerDone(page, null);

      await openFolder(page, folder);
      expect(await page.evaluate(() => document.body.dataset.model)).toBe(`disk:${FOLDER_NAME}`);
      expect(await textOf(page, 'backend')).toBe('backend: wasm');
      expect(await textOf(page, 'dtype')).toBe('dtype: fp32 (onnx/model.onnx)');
      expect(await textOf(page, 'load-status')).toMatch(new RegExp(`^model disk:${FOLDER_NAME} ready in`));
      // The dtype choice lists the folder's files only.
      expect(await page.$$eval('[data-testid="model-dtype"] option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['fp32', 'q4f16']);
      expect(await textOf(page, 'inf-model')).toBe(`disk:${FOLDER_NAME}`);

      // The explorer scored again on the folder's model: its own-call row is the Calculator example, as Node scores it.
      const second = await explorerDone(page, first);
      expect(await textOf(page, 'ex-status')).toMatch(FUNNEL);
      const node = nodeGolden.fp32![CALCULATOR].losses;
      const shown = await ownRowLosses(page);
      for (const key of ['noCall', 'callOnly', 'withResult'] as const) {
        expect(Math.abs(shown[key] - node[key]), `explorer ${key}: ${shown[key]} vs Node ${node[key]}`).toBeLessThan(TOLERANCE.fp32! + SHOWN);
      }
      const golden = (cases: typeof GOLDEN_CASES) => scoreGoldenInPage(page, cases);
      expectClose(await golden(GOLDEN_CASES), nodeGolden.fp32!, TOLERANCE.fp32!);

      // The other dtype: the folder's q4f16 file with its external data, a float16 KV cache and float16 logits.
      await page.selectOption('[data-testid="model-dtype"]', 'q4f16');
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="dtype"]')?.textContent?.startsWith('dtype: q4f16') && document.body.dataset.ready === 'true');
      expect(await textOf(page, 'dtype')).toBe('dtype: q4f16 (onnx/model_q4f16.onnx)');
      await explorerDone(page, second);
      const nodeQ4 = nodeGolden.q4f16![CALCULATOR].losses;
      const shownQ4 = await ownRowLosses(page);
      for (const key of ['noCall', 'callOnly', 'withResult'] as const) {
        expect(Math.abs(shownQ4[key] - nodeQ4[key]), `explorer q4f16 ${key}`).toBeLessThan(TOLERANCE.q4f16! + SHOWN);
      }
      expectClose(await golden(GOLDEN_CASES), nodeGolden.q4f16!, TOLERANCE.q4f16!);
      expectCleanPage({ errors, foreign });
    });
  }, TEST_CAP_MS);

  it('says in one line what a folder lacks and keeps the page model', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page } = await openPage(browser, `${served.url}?model=tiny-random&backend=wasm&${QUIET_EXPLORER}`);
      await waitWhileProgressing(page, () => document.body.dataset.ready === 'true');
      await page.setInputFiles('[data-testid="model-folder"]', join(folder, 'onnx'));
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="model-folder-note"]')?.classList.contains('error'));
      expect(await textOf(page, 'model-folder-note')).toMatch(/^folder "onnx" is not a Hugging Face ONNX causal-LM folder: missing config\.json, tokenizer\.json, onnx\/model\*\.onnx/);
      expect(await page.evaluate(() => document.body.dataset.model)).toBeUndefined();
      expect(await textOf(page, 'load-status')).toMatch(/^model .*tiny-random.* ready in/);
    });
  }, TEST_CAP_MS);

  it('on WebGPU the generation keeps the KV cache on the GPU and gives the same greedy text as WASM', async () => {
    const generated: Record<string, { text: string; status: string; result: string }> = {};
    for (const backend of ['wasm', 'webgpu'] as const) {
      await withBrowser({ webgpu: backend === 'webgpu' }, async (browser) => {
        const { page, errors } = await openPage(browser, `${served.url}?model=tiny-random&backend=${backend}&${QUIET_EXPLORER}`);
        await waitWhileProgressing(page, () => document.body.dataset.ready === 'true');
        await openFolder(page, trained);
        expect(await textOf(page, 'backend')).toBe(`backend: ${backend}`);
        await page.fill('[data-testid="inf-prompt"]', 'The capital of Peru is');
        await page.click('[data-testid="inf-run"]');
        await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.getAttribute('data-done'));
        generated[backend] = { text: await textOf(page, 'inf-output'), status: await textOf(page, 'inf-status'), result: await textOf(page, 'inf-result') };
        expect(errors).toEqual([]);
      });
    }
    expect(generated.wasm.text.startsWith('The capital of Peru is')).toBe(true);
    expect(generated.wasm.text.length).toBeGreaterThan('The capital of Peru is'.length);
    // The finetuned model's QA call (as e2e/app.test.ts checks on models/toolformer), its result fed back in one run.
    expect(generated.wasm.text).toContain('[QA("What is the capital of Peru?") ->');
    expect(generated.wasm.result).toContain('Lima');
    expect(generated.webgpu.text).toBe(generated.wasm.text);
    expect(generated.webgpu.result).toBe(generated.wasm.result);
    expect(generated.wasm.status).toMatch(/^1 call · wasm · /);
    expect(generated.wasm.status).not.toMatch(/KV cache on the GPU/);
    // Every decoding step's cache came back as GPU buffers: the prompt's prefill, each token, the inserted result.
    const steps = /KV cache on the GPU \((\d+) of (\d+) steps\)/.exec(generated.webgpu.status);
    expect(steps, generated.webgpu.status).not.toBeNull();
    expect(Number(steps![1])).toBe(Number(steps![2]));
    expect(Number(steps![2])).toBeGreaterThan(1);
  }, TEST_CAP_MS);
});
