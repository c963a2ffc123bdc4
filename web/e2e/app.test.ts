/**
 * The web app in a real browser: build it, serve it with `vite preview`, drive headless Chromium (playwright-core),
 * once on WebGPU (SwiftShader adapter via --enable-unsafe-webgpu) and once on WASM. Each run: the worked example,
 * one explorer scoring, sliders that change the decision without re-running the model, the golden losses against
 * the Node pipeline (onnxruntime-node, same core scorer) within 1e-3, no console errors, no request off the origin.
 * Screenshots go to out/web-test/. Uses models/tiny-random (small and committed) so the runs stay short.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadModel } from '../../pipeline/node/model/load-model.ts';
import type { GoldenResult } from '../src/analysis-types.ts';
import { GOLDEN_CASES, scoreGolden } from '../src/golden.ts';
import { skipWithoutChromium, openPage, setSlider, textOf, scoreGoldenInPage, FUNNEL, withBrowser } from './browser.ts';
import { buildAndServe, repoRoot, type Served } from './serve.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { expectCleanPage } from './suite.ts';

const OUT = join(repoRoot, 'out/web-test');
const MODEL = 'tiny-random';
/** A held-out capital (not in the finetuning data); the call models/toolformer writes for it, greedy, top-k 10. */
const INFERENCE_PROMPT = 'The capital of Peru is';
const INFERENCE_CALL = '[QA("What is the capital of Peru?") ->';
const INFERENCE_ANSWER = 'Lima';

let served: Served;
let nodeGolden: GoldenResult[];

const text = textOf;

/** Set a range input through the keyboard (Home, then ArrowRight steps), as a keyboard user would. */
async function keyboardSlide(page: Page, id: string, key: 'Home' | 'End'): Promise<void> {
  await page.focus(`[data-testid="${id}"]`);
  await page.keyboard.press(key);
}

describe.skipIf(skipWithoutChromium('web app in headless Chromium'))('web app in headless Chromium', () => {
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    served = await buildAndServe('app');
    // The golden fixture, written by the Node side: onnxruntime-node + the core scorer.
    const lm = await loadModel(join(repoRoot, 'models', MODEL));
    nodeGolden = await scoreGolden(lm, GOLDEN_CASES);
    writeFileSync(join(OUT, 'golden-node.json'), JSON.stringify({ model: MODEL, cases: GOLDEN_CASES, results: nodeGolden }, null, 2));
  }, TEST_CAP_MS);

  afterAll(async () => {
    await served?.close();
  });

  for (const backend of ['wasm', 'webgpu'] as const) {
    it(`runs the loss filter on ${backend}`, async () => {
      await withBrowser({ webgpu: backend === 'webgpu' }, async (browser) => {
        // Small explorer settings: one tool, k 2; LM sampling only on WASM (SwiftShader decodes ~10 tokens/s).
        const m = backend === 'wasm' ? 1 : 0;
        const url = `${served.url}?model=${MODEL}&backend=${backend}&tools=Calculator&k=2&m=${m}&tauF=0.5`;
        const { page, errors, foreign } = await openPage(browser, url);
        await waitWhileProgressing(page, () => document.body.dataset.ready);
        expect(await page.evaluate(() => document.body.dataset.ready)).toBe('true');
        expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
        expect(await text(page, 'backend')).toBe(`backend: ${backend}`);
        const reason = await text(page, 'backend-reason');
        expect(reason).toMatch(backend === 'webgpu' ? /WebGPU adapter .*swiftshader/i : /WASM requested; WASM, \d threads?/);

        // Worked example: 1.3 kept at τ_f 1.0; dropped when τ_f goes to its maximum by keyboard; kept again at 1.3.
        expect(await text(page, 'we-formula')).toContain('min(2.50, 2.10) − 0.80 = 1.30');
        expect(await text(page, 'we-verdict')).toBe('kept: 1.30 ≥ τ_f 1.00');
        await keyboardSlide(page, 'we-tau-f', 'End');
        expect(await text(page, 'we-verdict')).toBe('dropped: 1.30 < τ_f 3.00');
        await setSlider(page, 'we-tau-f', 1.3);
        expect(await text(page, 'we-verdict')).toMatch(/^kept: 1\.30 ≥ τ_f 1\.30$/);

        // Explorer: the first scoring runs on load; the user's own call (Calculator(600 / 2400) at 34) is scored.
        await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
        const done = await page.getAttribute('[data-testid="ex-status"]', 'data-done');
        expect(await text(page, 'ex-status')).toMatch(FUNNEL);
        const strip = page.locator('[data-testid="ex-strip-Calculator"] .strip span');
        expect(await strip.count()).toBeGreaterThan(10);
        // At τ_s = 0 every stored candidate sat at a position the stage chose: none may read "below_tau_s".
        expect(await page.locator('td', { hasText: 'below_tau_s' }).count()).toBe(0);
        const chosenAt0 = await page.locator('[data-testid="ex-strip-Calculator"] [data-chosen]').count();
        expect(chosenAt0).toBeGreaterThan(0);
        await keyboardSlide(page, 'ex-tau-s', 'End'); // τ_s = 0.2: only heuristic positions stay chosen
        expect(await page.locator('[data-testid="ex-strip-Calculator"] [data-chosen]').count()).toBeLessThanOrEqual(chosenAt0);
        await keyboardSlide(page, 'ex-tau-s', 'Home');
        const ownRow = page.locator('tr', { has: page.locator('td', { hasText: 'yours' }) });
        await expect.poll(() => ownRow.count()).toBe(1);
        const cells = (await ownRow.locator('td').allTextContents()).map((c) => c.trim());
        expect(cells[0]).toBe('Calculator');
        expect(cells[3]).toBe('[Calculator(600 / 2400)]');
        expect(cells[4]).toBe('0.25');
        const [la, lb, lc, u] = cells.slice(5, 9).map(Number);
        for (const x of [la, lb, lc]) expect(x).toBeGreaterThan(0);
        expect(u).toBeCloseTo(Math.min(la, lb) - lc, 2);

        // τ_f re-judges from stored numbers: kept just below its usefulness, dropped just above; no model run.
        const decision = () => ownRow.locator('td').last().textContent();
        await setSlider(page, 'ex-tau-f', Math.floor((u - 0.05) * 20) / 20);
        // The counterfactual control is on, as in annotate: the call's measured margin over a distractor result
        // (column "control") must reach the tool's margin (1 nat for Calculator); off, τ_f alone decides.
        const margin = Number(cells[9]);
        expect(await decision()).toBe(Number.isFinite(margin) && margin < 1 ? 'dropped: below_control' : 'kept');
        await page.click('[data-testid="ex-control"]');
        expect(await decision()).toBe('kept');
        expect(await text(page, 'ex-inlined')).toContain('(or [Calculator(600 / 2400) -> 0.25] 25%)');
        await setSlider(page, 'ex-tau-f', Math.ceil((u + 0.05) * 20) / 20);
        expect(await decision()).toBe('dropped: below_tau_f');
        expect(await text(page, 'ex-inlined')).not.toContain('[Calculator');
        await keyboardSlide(page, 'ex-tau-f', 'Home'); // τ_f = −5: the call is kept (its usefulness is above that)
        expect(u).toBeGreaterThan(-5);
        expect(await decision()).toBe('kept');
        expect(await page.getAttribute('[data-testid="ex-status"]', 'data-done')).toBe(done);

        // Golden: the browser's L_a, L_b, L_c equal the Node pipeline's within 1e-3.
        const browserGolden = await scoreGoldenInPage(page, GOLDEN_CASES);
        writeFileSync(join(OUT, `golden-${backend}.json`), JSON.stringify(browserGolden, null, 2));
        expect(browserGolden).toHaveLength(nodeGolden.length);
        browserGolden.forEach((b, i) => {
          for (const key of ['noCall', 'callOnly', 'withResult'] as const) {
            expect(Math.abs(b.losses[key] - nodeGolden[i].losses[key]), `${backend} case ${i} ${key}`).toBeLessThan(1e-3);
          }
        });

        if (backend === 'wasm') {
          // Run viewer: per-tool counts and the survival curve follow the τ_f slider.
          const lines = [
            { tool: 'Calculator', losses: { noCall: 2.5, callOnly: 2.1, withResult: 0.8 } },
            { tool: 'Calculator', losses: { noCall: 1.0, callOnly: 1.2, withResult: 0.9 } },
            { tool: 'QA', losses: { noCall: 3.0, callOnly: 2.6, withResult: 1.0 } },
            { tool: 'QA', error: 'no answer' },
          ].map((l) => JSON.stringify(l)).join('\n');
          await page.setInputFiles('[data-testid="rv-file"]', { name: 'calls.jsonl', mimeType: 'application/x-ndjson', buffer: Buffer.from(lines) });
          await expect.poll(() => text(page, 'rv-status')).toBe('calls.jsonl: 4 candidate calls');
          expect(await text(page, 'rv-kept-all')).toBe('2');
          await setSlider(page, 'rv-tau-f', 1.5);
          expect(await text(page, 'rv-kept-all')).toBe('1');
          expect(await text(page, 'rv-kept-QA')).toBe('1');
          expect(await text(page, 'rv-kept-Calculator')).toBe('0');
          await setSlider(page, 'rv-tau-f', 1.0);
        }

        await setSlider(page, 'ex-tau-f', 0.5);
        await page.screenshot({ path: join(OUT, `${backend}.png`), fullPage: true });
        expectCleanPage({ errors, foreign });
      });
    }, TEST_CAP_MS);
  }

  // Inference panel: the finetuned model (models/toolformer) generates in the worker with live tools; a fact prompt
  // makes a QA call whose result (from the bundled knowledge base) is inserted and highlighted.
  for (const backend of ['wasm', 'webgpu'] as const) {
    it(`generates with a live tool call on ${backend}`, async () => {
      await withBrowser({ webgpu: backend === 'webgpu' }, async (browser) => {
        // The page's own model stays tiny-random (the explorer's first run is cheap: one tool, k 1, no sampling).
        const url = `${served.url}?model=${MODEL}&backend=${backend}&tools=Calculator&k=1&m=0`;
        const { page, errors, foreign } = await openPage(browser, url);
        await waitWhileProgressing(page, () => document.body.dataset.ready);
        expect(await text(page, 'backend')).toBe(`backend: ${backend}`);
        await page.fill('[data-testid="inf-prompt"]', INFERENCE_PROMPT);
        await page.click('[data-testid="inf-run"]');
        await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.getAttribute('data-done'));
        expect(await text(page, 'inf-call')).toBe(INFERENCE_CALL);
        expect(await text(page, 'inf-call-result')).toBe(INFERENCE_ANSWER);
        expect(await text(page, 'inf-result')).toBe(`${INFERENCE_ANSWER}]`);
        expect(await text(page, 'inf-output')).toContain(`${INFERENCE_PROMPT} [${INFERENCE_CALL.slice(1)} ${INFERENCE_ANSWER}]`);
        expect(await text(page, 'inf-status')).toContain(backend);
        // Tools off: " [" is masked, no call.
        await page.uncheck('[data-testid="inf-tools"]');
        await page.click('[data-testid="inf-run"]');
        await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.getAttribute('data-done'));
        expect(await page.locator('[data-testid="inf-call"]').count()).toBe(0);
        expect(await text(page, 'inf-status')).toMatch(/^0 calls/);
        await page.screenshot({ path: join(OUT, `inference-${backend}.png`), fullPage: true });
        expectCleanPage({ errors, foreign });
      });
    }, TEST_CAP_MS);
  }
});
