/**
 * The explorer's LM context and proposer switches (issue 21 item 4), in headless Chromium on WASM: with
 * ?lmContext=bare&programmatic=0 every candidate is an LM sample drawn from the bare text, the page says so; with the
 * programmatic proposers switched back on, proposers' calls appear beside them. Which calls a model writes is the
 * pipeline's business (core/stages/propose-stage.test.ts); here, that the page runs what it shows.
 */
import { describe, expect, it } from 'vitest';
import { openPage, skipWithoutChromium, withBrowser } from './browser.ts';
import { servedForSuite } from './suite.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';


const doneAfter = (previous: string | null) =>
  `document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done') && document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done') !== ${JSON.stringify(previous)}`;

describe.skipIf(skipWithoutChromium('explorer LM context in headless Chromium'))('explorer LM context in headless Chromium', () => {
  const served = servedForSuite('lm-context');

  it('bare context without proposers: every candidate is an LM sample; proposers back on: theirs appear beside', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const url = `${served.url}?model=tiny-random&backend=wasm&tools=Calculator&k=2&m=2&lmContext=bare&programmatic=0`;
      const { page, errors } = await openPage(browser, url);
      await waitWhileProgressing(page, doneAfter(null));
      expect(await page.inputValue('[data-testid="ex-lm-context"]')).toBe('bare');
      expect(await page.isChecked('[data-testid="ex-programmatic"]')).toBe(false);
      const proposers = async () => (await page.locator('[data-testid="ex-candidates"] tr td:nth-child(3), [data-testid="ex-rejected"] tr td:nth-child(3)').allTextContents()).map((t) => t.trim());
      const bare = await proposers();
      expect(bare.length).toBeGreaterThan(0); // k 2 positions × m 2 samples (each kept, dropped or rejected)
      expect(new Set(bare)).toEqual(new Set(['LM sample']));

      const first = await page.getAttribute('[data-testid="ex-status"]', 'data-done');
      await page.click('[data-testid="ex-programmatic"]');
      await waitWhileProgressing(page, doneAfter(first));
      const both = await proposers();
      expect(both).toContain('LM sample');
      expect(both.some((p) => p === 'proposer' || p === 'yours')).toBe(true);
      expect(errors).toEqual([]);
    });
  }, TEST_CAP_MS);
});
