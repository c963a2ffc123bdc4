/**
 * A fifth tool in the web app, in a real browser: the app built with the test registry
 * (pipeline/core/tools/testing/registry.ts: the four tools and the toy UnitConvert) in place of web/src/tool-specs.ts,
 * on WASM with models/tiny-random. The explorer lists the tool beside the others and scores its calls — its heuristic
 * positions, its worked example as the user's own call — with no edit outside the tool's folder and that registry.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_SPECS } from '../../pipeline/core/tools/testing/registry.ts';
import { skipWithoutChromium, openPage, textOf, FUNNEL, withBrowser } from './browser.ts';
import { repoRoot } from './serve.ts';
import { expectCleanPage, servedForSuite } from './suite.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';

const OUT = join(repoRoot, 'out/web-test');
const TOOL = 'UnitConvert';
const example = TOOL_SPECS.find((s) => s.name === TOOL)!.examples![0];

const text = textOf;

describe.skipIf(skipWithoutChromium('a fifth tool in the web app (headless Chromium)'))('a fifth tool in the web app (headless Chromium)', () => {
  const served = servedForSuite('fifth-tool', { toolSpecs: join(repoRoot, 'pipeline/core/tools/testing/registry.ts') });

  it('lists it in the explorer and scores its calls on wasm', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const url = `${served.url}?model=tiny-random&backend=wasm&tools=${TOOL}&k=2&m=0&text=${encodeURIComponent(example.text)}`;
      const { page, errors, foreign } = await openPage(browser, url);
      await waitWhileProgressing(page, () => document.body.dataset.ready);
      expect(await page.evaluate(() => document.body.dataset.ready)).toBe('true');

      // The tool list: every spec of the registry the app was built with, in its order; only UnitConvert runs.
      const boxes = page.locator('[data-testid^="ex-tool-"]');
      await expect.poll(() => boxes.count()).toBe(TOOL_SPECS.length);
      expect(await boxes.evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')))).toEqual(TOOL_SPECS.map((s) => `ex-tool-${s.name}`));
      expect(await page.isChecked(`[data-testid="ex-tool-${TOOL}"]`)).toBe(true);
      expect(await page.isChecked('[data-testid="ex-tool-Calculator"]')).toBe(false);

      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      expect(await text(page, 'ex-status')).toMatch(FUNNEL);
      expect(await page.locator(`[data-testid="ex-strip-${TOOL}"] .strip span`).count()).toBeGreaterThan(10);

      // Its worked example is the user's own call: executed in the worker and scored.
      const ownRow = page.locator('tr', { has: page.locator('td', { hasText: 'yours' }) });
      await expect.poll(() => ownRow.count()).toBe(1);
      const cells = (await ownRow.locator('td').allTextContents()).map((c) => c.trim());
      expect(cells.slice(0, 5)).toEqual([TOOL, String(example.at), 'yours', `[${TOOL}(${example.input})]`, example.result]);
      const [la, lb, lc, u] = cells.slice(5, 9).map(Number);
      for (const x of [la, lb, lc]) expect(x).toBeGreaterThan(0);
      expect(u).toBeCloseTo(Math.min(la, lb) - lc, 2);
      // Judged like any call, from the stored numbers: control off and τ_f at its minimum (−5), it is kept.
      expect(u).toBeGreaterThan(-5);
      if (await page.isChecked('[data-testid="ex-control"]')) await page.click('[data-testid="ex-control"]');
      await page.focus('[data-testid="ex-tau-f"]');
      await page.keyboard.press('Home');
      expect(await ownRow.locator('td').last().textContent()).toBe('kept');
      expect(await text(page, 'ex-inlined')).toContain(`12 km [${TOOL}(${example.input}) -> ${example.result}] (7.46 mi)`);

      // Its proposer's call before "800 m" (the last quantity before it, converted back) is scored too.
      const rows = page.locator('tr', { has: page.locator('td', { hasText: '7.46 mi to km' }) });
      await expect.poll(() => rows.count()).toBeGreaterThan(0);
      const proposed = (await rows.first().locator('td').allTextContents()).map((c) => c.trim());
      expect(proposed[2]).toBe('proposer');
      expect(proposed[4]).toBe('12.01 km');
      expect(Number(proposed[5])).toBeGreaterThan(0);

      await page.screenshot({ path: join(OUT, 'fifth-tool.png'), fullPage: true });
      expectCleanPage({ errors, foreign });
    });
  }, TEST_CAP_MS);
});
