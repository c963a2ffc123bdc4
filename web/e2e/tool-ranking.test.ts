/**
 * Tool retrieval in a real browser (issue 30): the explorer's ranking panel (web/src/ui/tool-ranking.ts) ranks the
 * same tools for the same text exactly as Node does — BM25 over the app's built-in tools and the mathjs catalog's,
 * names in the same order and scores equal to the last bit (the panel keeps its ranking unrounded on data-ranking).
 * Texts: every tenth request of the labelled set (pipeline/eval/retrieval/requests.jsonl), typed into the explorer's
 * text box once the panel is opened; then the catalog unchecked (built-in tools only). No model is loaded (?model=none):
 * BM25 needs none.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Bm25Retriever } from '../../pipeline/core/retrieval/bm25.ts';
import type { RankedTool } from '../../pipeline/core/retrieval/retriever.ts';
import { mathjsSpecs } from '../../pipeline/core/tools/catalogs/mathjs/index.ts';
import { TOOL_SPECS } from '../../pipeline/core/tools/registry.ts';
import { openPage, skipWithoutChromium, withBrowser } from './browser.ts';
import { buildApp, repoRoot, serveApp, type Served } from './serve.ts';
import { expectCleanPage } from './suite.ts';

/** Tools the panel shows (tool-ranking.ts SHOWN). */
const SHOWN = 8;
const requests = readFileSync(join(repoRoot, 'pipeline/eval/retrieval/requests.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { text: string });
const texts = requests.filter((_, i) => i % 10 === 0).map((r) => r.text);

let served: Served;

/** Type `text` into the explorer and read the panel's ranking once it has ranked that text. */
async function rankInPage(page: Page, text: string): Promise<RankedTool[]> {
  const before = await page.getAttribute('[data-testid="tr-status"]', 'data-done');
  await page.fill('[data-testid="ex-text"]', text);
  await page.waitForFunction((was) => {
    const done = document.querySelector('[data-testid="tr-status"]')?.getAttribute('data-done');
    return done !== null && done !== undefined && done !== was;
  }, before, { timeout: 60_000 });
  return JSON.parse((await page.getAttribute('[data-testid="tr-ranking"]', 'data-ranking')) ?? 'null') as RankedTool[];
}

describe.skipIf(skipWithoutChromium('tool ranking in the browser (headless Chromium)'))('tool ranking: Node = Chromium', () => {
  beforeAll(async () => {
    const outDir = join(repoRoot, 'out/web-test/dist-tool-ranking');
    await buildApp({ outDir });
    served = await serveApp({ outDir });
  }, 300_000);

  afterAll(async () => {
    await served?.close();
  });

  it('BM25 over the built-in tools and the mathjs catalog: the same names and scores, exactly', async () => {
    expect(texts.length).toBeGreaterThanOrEqual(19);
    const withCatalog = new Bm25Retriever([...TOOL_SPECS, ...mathjsSpecs()]);
    const builtIn = new Bm25Retriever(TOOL_SPECS);
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors, foreign } = await openPage(browser, `${served.url}?model=none`);
      // Folded, the panel loads nothing; opened, it loads the tools and ranks the text in the box.
      expect(await page.getAttribute('[data-testid="tr-status"]', 'data-tools')).toBeNull();
      await page.click('[data-testid="tr-details"] summary');
      // The catalog loads on first use: the status names the tool count once it has.
      await page.waitForFunction(() => document.querySelector('[data-testid="tr-status"]')?.getAttribute('data-tools'), null, { timeout: 120_000 });
      expect(await page.getAttribute('[data-testid="tr-status"]', 'data-tools')).toBe(String(TOOL_SPECS.length + mathjsSpecs().length));

      let ranked = 0;
      for (const text of texts) {
        const inPage = await rankInPage(page, text);
        expect(inPage, text).toEqual(withCatalog.rankNow(text, SHOWN));
        if (inPage.length > 0) ranked++;
      }
      // Real rankings, not empty lists compared with empty lists; the shown names are the ranking's.
      expect(ranked).toBeGreaterThanOrEqual(texts.length - 2);
      const last = withCatalog.rankNow(texts.at(-1)!, SHOWN);
      expect(await page.locator('[data-testid^="tr-tool-"] .name').allTextContents()).toEqual(last.map((r) => r.name));

      // Arithmetic in words ranks the Calculator in the top 3 among 219 tools; the other built-in tools follow the
      // top with their place; the status says what a score is.
      for (const request of ['What is 37 plus 48?', 'Tom had 37 apples and got 48 more. How many apples in all?']) {
        expect((await rankInPage(page, request)).slice(0, 3).map((r) => r.name), request).toContain('Calculator');
        const ranks = JSON.parse((await page.getAttribute('[data-testid="tr-builtin"]', 'data-ranks')) ?? '[]') as { name: string }[];
        expect([...ranks.map((r) => r.name), 'Calculator'].sort()).toEqual(TOOL_SPECS.map((t) => t.name).sort());
        expect(await page.textContent('[data-testid="tr-status"]')).toMatch(/Score = BM25 score: .*0 = no shared word/);
      }
      expect(await rankInPage(page, 'Whereupon the zebras yodelled.')).toEqual([]);
      expect(await page.textContent('[data-testid="tr-status"]')).toMatch(/^no tool matched: none of the 219 tools/);

      // Without the catalog: the built-in tools only.
      await page.uncheck('[data-testid="tr-catalog"]');
      await page.waitForFunction((n) => document.querySelector('[data-testid="tr-status"]')?.getAttribute('data-tools') === n, String(TOOL_SPECS.length));
      const question = 'What is the capital of France, and what is 18 times 12?';
      expect(await rankInPage(page, question)).toEqual(builtIn.rankNow(question, SHOWN));
      expectCleanPage({ errors, foreign });
    });
  }, 300_000);
});
