/**
 * The explorer's inputs in Chromium (WASM), issue 49 item 8: the own call's tool is a list of the page's tools (one
 * named only in a URL, e.g. `Weather`, stops the run with one line naming the tools instead of vanishing from the
 * count); a corpus sample whose date is a year only ("1790", the SOTU samples) shows that year in the date field,
 * with no console warning, and the Calendar answers for it.
 */
import { describe, expect, it } from 'vitest';
import { openPage, skipWithoutChromium, textOf, withBrowser } from './browser.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { servedForSuite } from './suite.ts';

const GROUP = "the explorer's own call and date inputs (Chromium, WASM)";

describe.skipIf(skipWithoutChromium(GROUP))(GROUP, () => {
  const served = servedForSuite('explorer-inputs');

  it('lists the page\'s tools for the own call, names an unknown one, and keeps a year-only date', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors } = await openPage(browser, `${served.url}?backend=wasm&tools=Calculator&m=0&own=Weather|Paris|3`);
      const warnings: string[] = [];
      page.on('console', (m) => void (m.type() === 'warning' && warnings.push(m.text())));
      await waitWhileProgressing(page, () => /Scoring failed/.test(document.querySelector('[data-testid="ex-status"]')?.textContent ?? ''));
      const tools = await page.locator('[data-testid^="ex-tool-"]').evaluateAll((boxes) => boxes.map((b) => b.id.slice('ex-tool-'.length)));
      expect(tools.length).toBeGreaterThanOrEqual(4);
      expect(await page.locator('[data-testid="ex-own-tool"] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)))
        .toEqual(['', ...tools]);
      expect(await textOf(page, 'ex-status')).toBe(`Scoring failed: your own call's tool "Weather" is not one of the page's tools: ${tools.join(', ')}`);

      // A SOTU sample: its date is the year alone, shown as such; the own call Calendar() answers with that year.
      const option = await page.locator('[data-testid="ex-sample"] option', { hasText: 'sotu/1790-' }).getAttribute('value');
      await page.selectOption('[data-testid="ex-sample"]', option!);
      expect(await page.inputValue('[data-testid="ex-date"]')).toBe('1790');
      await page.fill('[data-testid="ex-own-input"]', '');
      await page.selectOption('[data-testid="ex-own-tool"]', 'Calendar');
      await waitWhileProgressing(page, () => (document.querySelector('[data-testid="ex-candidates"]')?.textContent ?? '').includes('This year is 1790.'));
      expect(warnings.filter((w) => /date|format/i.test(w))).toEqual([]);
      expect(errors).toEqual([]);
    });
  }, TEST_CAP_MS);
});
