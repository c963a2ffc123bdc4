/**
 * Toolkens (ToolkenGPT) in the real browser (headless Chromium, WASM), on the bundled models/default:
 *   - a toolkens file trained in Node (`toolformer toolkens train`'s own function) opened through the panel's file
 *     input gives the same p(toolken) per token in the explorer's strips as Node on the same text (1e-4);
 *   - a file whose recorded model digest is another model's is refused in one line, and the strips stay;
 *   - with a model folder opened from disk, the digest is the folder's (hashed from its File objects): a byte-equal
 *     copy of models/default keeps the file, the copy with one more file refuses it;
 *   - training in the page from the bundled run's train.jsonl: Cancel stops it; run again, the loss falls, a file
 *     in the same format is offered (download), its digest is the model's, it is used at once (the strips change),
 *     and Node reads the same probabilities from the downloaded file (1e-4).
 * Waits are bounded by progress (progress-wait.ts): a step fails when nothing on the page has moved for STALL_MS.
 */
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToolkens, type Toolkens } from '../../pipeline/core/toolkens/file.ts';
import { loadModel } from '../../pipeline/node/model/load-model.ts';
import { modelDigest } from '../../pipeline/node/run/run-digest.ts';
import { toolkenStrip } from '../src/toolkens-jobs.ts';
import { openPage, skipWithoutChromium, textOf, withBrowser } from './browser.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { expectCleanPage } from './suite.ts';
import { buildAndServe, type Served } from './serve.ts';
import { TOOLKENS_MODEL, writeToolkensFiles } from './toolkens-files.ts';

const MODEL = TOOLKENS_MODEL;
/** A real text: Factbook prose with a population figure and a capital (the kinds of call the toolkens learned). */
const TEXT = 'Population: 5,664,939 (July 2015 est.) The capital of Kyrgyzstan is Bishkek, and 37 plus 48 is 85.';
/** onnxruntime-web (wasm) against onnxruntime-node: ~1e-6 on logits; the brief's bound. */
const TOLERANCE = 1e-4;
const EXPLORER = `model=default&backend=wasm&tools=Calculator&k=1&m=0&own=&control=0&text=${encodeURIComponent(TEXT)}`;

let dir: string;
let served: Served;
let nodeFile: string;
let foreignFile: string;
let lm: Awaited<ReturnType<typeof loadModel>>;
let nodeStrip: Awaited<ReturnType<typeof toolkenStrip>>;

/** The p(toolken) per token each strip carries (data-p), by tool. */
async function shownStrips(page: Page): Promise<Record<string, (number | null)[]>> {
  return page.$$eval('[data-testid^="ex-toolken-strip-"]', (figs) =>
    Object.fromEntries(figs.map((f) => [f.getAttribute('data-testid')!.slice('ex-toolken-strip-'.length), JSON.parse((f as HTMLElement).dataset.p!)])));
}

function expectSame(shown: Record<string, (number | null)[]>, node: typeof nodeStrip, what: string): void {
  expect(Object.keys(shown)).toEqual(node.tools);
  let worst = 0;
  node.tools.forEach((tool, k) => {
    expect(shown[tool]).toHaveLength(node.p[k].length);
    shown[tool].forEach((p, i) => (worst = Math.max(worst, Math.abs(p! - node.p[k][i]!))));
  });
  console.info(`toolkens e2e: ${what}: largest |p(toolken) Chromium − Node| ${worst.toExponential(2)} over ${node.tools.length} × ${node.p[0].length} values, largest p ${Math.max(...node.p.flat().map(Number)).toExponential(2)}`);
  expect(worst).toBeLessThan(TOLERANCE);
}

describe.skipIf(skipWithoutChromium('toolkens in headless Chromium'))('toolkens in headless Chromium', () => {
  beforeAll(async () => {
    const files = await writeToolkensFiles('toolkens-web-');
    ({ dir, nodeFile, foreignFile } = files);
    lm = await loadModel(MODEL, { lm: { hiddenStates: true } });
    nodeStrip = await toolkenStrip(lm, files.toolkens, TEXT);
    served = await buildAndServe('toolkens');
  }, TEST_CAP_MS);

  afterAll(async () => {
    await served?.close();
    await lm?.release();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows the same p(toolken) as Node for a file trained in Node, and refuses another model\'s file in one line', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors, foreign } = await openPage(browser, `${served.url}?${EXPLORER}`);
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      await page.setInputFiles('[data-testid="tk-file"]', nodeFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens && document.querySelector('[data-testid^="ex-toolken-strip-"]'));
      expect(await textOf(page, 'tk-status')).toMatch(/^node\.safetensors: \d+ toolkens \(.+\), \[\d+ × 256\]; model digest matches .*models\/default \([0-9a-f]{12}…\)$/);
      expect(nodeStrip.tools.length).toBeGreaterThan(0);
      expect(nodeStrip.p.flat().some((p) => p! > 1e-6)).toBe(true); // not all zero: the comparison means something
      expectSame(await shownStrips(page), nodeStrip, 'file trained in Node');

      await page.setInputFiles('[data-testid="tk-file"]', foreignFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens === 'refused');
      const refusal = await textOf(page, 'tk-status');
      expect(refusal).toMatch(/^foreign\.safetensors: trained on another model \(digest f{12}, the page's model .*models\/default is [0-9a-f]{12}\); not loaded/);
      expect(refusal).not.toContain('\n');
      expect(modelDigest(MODEL).startsWith(/is ([0-9a-f]{12})\)/.exec(refusal)![1])).toBe(true);
      expectCleanPage({ errors, foreign });
    });
  }, TEST_CAP_MS);

  it('checks the file again against a folder opened from disk: a copy of the model keeps it, a changed folder refuses it', async () => {
    const copy = join(dir, 'default-copy');
    await cp(MODEL, copy, { recursive: true });
    const changed = join(dir, 'default-changed');
    await cp(MODEL, changed, { recursive: true });
    await writeFile(join(changed, 'NOTES.md'), 'one more file\n');
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors } = await openPage(browser, `${served.url}?${EXPLORER}`);
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      await page.setInputFiles('[data-testid="tk-file"]', nodeFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens === 'loaded');
      for (const [folder, kept] of [[copy, true], [changed, false]] as const) {
        const name = folder.split('/').at(-1)!;
        await page.setInputFiles('[data-testid="model-folder"]', folder);
        await waitWhileProgressing(page, (n) => document.body.dataset.model === `disk:${n}` && document.body.dataset.ready === 'true', name);
        await waitWhileProgressing(page, (n) => (document.querySelector('[data-testid="tk-status"]')?.textContent ?? '').includes(`disk:${n}`), name);
        const status = await textOf(page, 'tk-status');
        if (kept) expect(status).toMatch(new RegExp(`^node\\.safetensors: .*model digest matches disk:${name} \\(${modelDigest(copy).slice(0, 12)}…\\)$`));
        else expect(status).toBe(`node.safetensors: trained on another model (digest ${modelDigest(MODEL).slice(0, 12)}, the page's model disk:${name} is ${modelDigest(changed).slice(0, 12)}); not loaded — train toolkens for this model below`);
      }
      expect(modelDigest(copy)).toBe(modelDigest(MODEL));
      expect(errors).toEqual([]);
    });
  }, TEST_CAP_MS);

  it('trains toolkens in the page: cancellable, the loss falls, the file downloads, and it is used at once', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors } = await openPage(browser, `${served.url}?${EXPLORER}`);
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      await page.setInputFiles('[data-testid="tk-file"]', nodeFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens === 'loaded' && document.querySelector('[data-testid^="ex-toolken-strip-"]'));
      const before = await shownStrips(page);

      // Cancel while the frozen model runs over the windows: the panel is idle again, nothing is produced.
      await page.click('[data-testid="tk-train-bundled"]');
      await waitWhileProgressing(page, () => /^Frozen model over the labelled windows: [1-9]/.test(document.querySelector('[data-testid="tk-train-status"]')?.textContent ?? ''));
      await page.click('[data-testid="tk-cancel"]');
      await waitWhileProgressing(page, () => document.body.dataset.toolkenTraining === 'cancelled');
      expect(await textOf(page, 'tk-train-status')).toBe('Cancelled.');
      expect(await page.isHidden('[data-testid="tk-download"]')).toBe(true);

      // Train for real — 3 epochs at lr 5e-3, not the Node file's 1e-3, so the new toolkens differ from the ones shown
      // (the same settings on the same data give the same W_τ up to float rounding) — wait by progress, then download.
      await page.fill('[data-testid="tk-epochs"]', '3');
      await page.fill('[data-testid="tk-lr"]', '0.005');
      await waitWhileProgressing(page, () => !(document.querySelector('[data-testid="tk-train-bundled"]') as HTMLButtonElement).disabled);
      await page.click('[data-testid="tk-train-bundled"]');
      await waitWhileProgressing(page, () => document.body.dataset.toolkenTraining !== 'running');
      expect(await page.evaluate(() => document.body.dataset.toolkenTraining), await textOf(page, 'tk-train-status')).toBe('done');
      expect(await textOf(page, 'tk-train-status')).toMatch(/^Trained in [\d.]+ s .*loss [\d.]+ → [\d.]+ \(train\), kept epoch \d; toolkens-default\.safetensors, \d+ bytes, in use below\.$/);
      expect(await page.locator('[data-testid="tk-curve"] polyline').count()).toBe(2);
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="tk-download"]')]);
      const bytes = new Uint8Array(await readFile(await download.path()));
      const trained: Toolkens = decodeToolkens(bytes, download.suggestedFilename());
      expect(download.suggestedFilename()).toBe('toolkens-default.safetensors');
      expect(trained.meta.modelDigest).toBe(modelDigest(MODEL));
      expect(trained.tools).toEqual(nodeStrip.tools);
      expect(JSON.parse(trained.meta.settings)).toMatchObject({ lr: 0.005, epochs: 3, seed: 1 });
      const history = JSON.parse(trained.meta.history) as { trainLoss: number; valLoss: number }[];
      const initial = JSON.parse(trained.meta.initialLoss) as { train: number; val: number };
      expect(history.length).toBeGreaterThan(0);
      expect(history.at(-1)!.trainLoss).toBeLessThan(initial.train);
      expect(Math.min(...history.map((e) => e.valLoss))).toBeLessThan(initial.val);

      // Used at once: the strips are the new file's, different from before, and Node reads the same from it.
      await waitWhileProgressing(page, () => /^toolkens-default\.safetensors: .*model digest matches/.test(document.querySelector('[data-testid="tk-status"]')?.textContent ?? ''));
      await waitWhileProgressing(page, (old) => {
        const fig = document.querySelector('[data-testid^="ex-toolken-strip-"]') as HTMLElement | null;
        return fig?.dataset.p !== undefined && fig.dataset.p !== old;
      }, JSON.stringify(Object.values(before)[0]));
      const after = await shownStrips(page);
      const moved = Math.max(...Object.keys(after).flatMap((tool) => after[tool].map((p, i) => Math.abs(p! - before[tool][i]!))));
      console.info(`toolkens e2e: training in the page moved p(toolken) by up to ${moved.toExponential(2)}`);
      expect(moved).toBeGreaterThan(10 * TOLERANCE); // a change well beyond the runtimes' rounding
      expectSame(after, await toolkenStrip(lm, trained, TEXT), 'file trained in the page');
      console.info(`toolkens e2e: in-page training: ${await textOf(page, 'tk-train-status')}`);
      expect(errors).toEqual([]);
    });
  }, TEST_CAP_MS);
});
