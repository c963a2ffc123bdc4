/**
 * The explorer's two-pass scoring in Chromium (WASM), on the default page: the first run scores L_b only where
 * L_a − L_c reaches the τ_f slider's value (τ_min 0.5); moving τ_f above it re-judges with no model call; moving it
 * below sends one job that scores the L_b of exactly the calls whose bound reaches the new τ_f, after which every row
 * equals a full scoring at that τ_f (an analysis asked of the same worker with τ_min there from the start).
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, setSlider, skipWithoutChromium, textOf, withBrowser } from './browser.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { servedForSuite } from './suite.ts';

const GROUP = "the explorer's two-pass scoring and on-demand L_b (Chromium, WASM)";
/** Where τ_f goes below the first run's τ_min (0.5): between the default text's bounds L_a − L_c (−0.14 … 0.48). */
const LOW = 0.1;

type Hook = { toolformer: { client: { posted: number; request(t: string, b: unknown): Promise<unknown> } } };
const posted = (page: Page) => page.evaluate(() => (globalThis as unknown as Hook).toolformer.client.posted);

/** Each executed call's row: index, L_b cell, whether its L_b is marked skipped, usefulness cell, decision. */
function rows(page: Page) {
  return page.locator('[data-testid="ex-candidates"] tbody tr').evaluateAll((trs) => trs.map((tr) => {
    const r = tr as HTMLTableRowElement;
    const cells = [...r.cells];
    return {
      index: Number(r.dataset.testid!.slice('ex-row-'.length)),
      kept: r.dataset.kept === 'true',
      callOnly: cells[6].textContent!.trim(),
      bound: cells[6].dataset.bound === 'true',
      usefulness: cells[8].textContent!.trim(),
      decision: cells[10].textContent!.trim(),
    };
  }));
}

describe.skipIf(skipWithoutChromium(GROUP))(GROUP, () => {
  const served = servedForSuite('tau-min');

  it('scores L_b below τ_min on demand, only for the calls whose bound reaches τ_f, then equals a full scoring', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors } = await openPage(browser, `${served.url}?backend=wasm`);
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      expect(await page.getAttribute('[data-testid="ex-status"]', 'data-tau-min')).toBe('0.5');
      const first = await rows(page);
      const skipped = first.filter((r) => r.bound);
      expect(skipped.length).toBeGreaterThan(0);
      // A skipped L_b shows its bound: "≤ L_a − L_c", below τ_min.
      for (const r of skipped) expect(r.usefulness).toMatch(/^≤ -?\d/);
      const wanted = skipped.filter((r) => Number(r.usefulness.slice(2)) >= LOW);
      expect(wanted.length).toBeGreaterThan(0);
      expect(wanted.length).toBeLessThan(skipped.length);

      // Above τ_min: re-judged on the page, no request to the worker.
      const before = await posted(page);
      for (const tauF of [0.5, 1, 2, 0.5]) await setSlider(page, 'ex-tau-f', tauF);
      expect(await posted(page)).toBe(before);

      // Below τ_min: one job; until it ends the rows it fills read as undecided, not dropped.
      await setSlider(page, 'ex-tau-f', LOW);
      await waitWhileProgressing(page, (low: number) => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-tau-min') === String(low), LOW);
      expect(await posted(page)).toBe(before + 1);
      expect(await textOf(page, 'ex-status')).toContain(`L_b of ${wanted.length} more scored for τ_f down to ${LOW.toFixed(2)}`);
      const after = await rows(page);
      const filled = new Set(after.filter((r) => !r.bound).map((r) => r.index));
      expect(skipped.filter((r) => filled.has(r.index)).map((r) => r.index).sort()).toEqual(wanted.map((r) => r.index).sort());
      expect(after.some((r) => r.decision.startsWith('undecided'))).toBe(false);

      // A full scoring: the same page opened at τ_f = LOW, whose first run has τ_min LOW. Every row the same: L_b
      // (as shown, 3 decimals; the fill batches other shapes, so allow the last digit), usefulness, verdict.
      const second = await openPage(browser, `${served.url}?backend=wasm&tauF=${LOW}`);
      await waitWhileProgressing(second.page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      expect(await second.page.getAttribute('[data-testid="ex-status"]', 'data-tau-min')).toBe(String(LOW));
      const full = await rows(second.page);
      const byIndex = (rs: typeof after) => [...rs].sort((x, y) => x.index - y.index);
      const near = (x: string, y: string) => x === y || Math.abs(Number(x.replace('≤ ', '')) - Number(y.replace('≤ ', ''))) <= 1.1e-3;
      expect(byIndex(after).map((r) => [r.index, r.kept, r.decision, r.bound])).toEqual(byIndex(full).map((r) => [r.index, r.kept, r.decision, r.bound]));
      byIndex(after).forEach((r, i) => {
        const f = byIndex(full)[i];
        expect(near(r.callOnly, f.callOnly), `row ${r.index} L_b ${r.callOnly} vs ${f.callOnly}`).toBe(true);
        expect(near(r.usefulness, f.usefulness), `row ${r.index} usefulness ${r.usefulness} vs ${f.usefulness}`).toBe(true);
      });
      expect(second.errors).toEqual([]);
      expect(errors).toEqual([]);
    });
  }, TEST_CAP_MS);
});
