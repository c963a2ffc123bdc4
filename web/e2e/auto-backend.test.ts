/**
 * The default page in Chromium with `--enable-unsafe-webgpu` on a machine without a GPU (the adapter is SwiftShader,
 * a fallback adapter): `auto` must choose WASM and say why, and the explorer's default text (all tools, the default
 * model, no query parameters) must finish scoring. Then Cancel: a long explorer job and a generation are each
 * cancelled, the panel is idle again, and a new job runs to the end; the explorer's Cancel leaves the generation
 * queued behind its job alone (it runs to the end).
 *
 * The first test asserts what the adapter is, so on a machine with a real GPU it fails loudly instead of passing
 * for the wrong reason.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openPage, setSlider, skipWithoutChromium, textOf, FUNNEL, withBrowser } from './browser.ts';
import { repoRoot } from './serve.ts';
import { expectCleanPage, servedForSuite } from './suite.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';

const OUT = join(repoRoot, 'out/web-test');

const text = textOf;
const attr = (page: Page, id: string, name: string) => page.getAttribute(`[data-testid="${id}"]`, name);

const GROUP = 'backend choice, progress and cancel (headless Chromium, SwiftShader offered)';

describe.skipIf(skipWithoutChromium(GROUP))(GROUP, () => {
  const served = servedForSuite('auto-backend');

  it('auto skips the fallback adapter: the default page scores its explorer text on WASM; Cancel stops a job and a new one runs', async () => {
    await withBrowser({ webgpu: true }, async (browser) => {
      const { page, errors, foreign } = await openPage(browser, served.url);
      // The browser does offer an adapter, and it is the software one (else this test would prove nothing).
      const adapter = await page.evaluate(async () => {
        const a = await (navigator as unknown as { gpu?: { requestAdapter(): Promise<{ info: { architecture: string; isFallbackAdapter?: boolean } } | null> } })
          .gpu?.requestAdapter();
        return a ? { architecture: a.info.architecture, fallback: a.info.isFallbackAdapter } : null;
      });
      expect(adapter).toEqual({ architecture: 'swiftshader', fallback: true });

      await waitWhileProgressing(page, () => document.body.dataset.ready);
      expect(await page.evaluate(() => document.body.dataset.ready)).toBe('true');
      expect(await text(page, 'backend')).toBe('backend: wasm');
      expect(await text(page, 'backend-reason')).toMatch(/^WebGPU adapter google\|swiftshader is a fallback adapter \(software, not a GPU.*\?backend=webgpu forces it\); WASM, \d threads?$/);

      // The explorer's first run, the default text with every tool, finishes (within this test's timeout).
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      const first = await attr(page, 'ex-status', 'data-done');
      expect(await text(page, 'ex-status')).toMatch(FUNNEL);
      // One strip per tool whose pre-filter passed (Translate's wants non-English text; this one is English).
      const strips = await page.locator('[data-testid^="ex-strip-"] .strip').count();
      expect(strips).toBeGreaterThan(0);
      expect(await page.isDisabled('[data-testid="ex-cancel"]')).toBe(true);

      // A long job (k 20, m 10: hundreds of LM samples), cancelled while it runs; the progress line names the stage.
      await setSlider(page, 'ex-k', 20);
      await setSlider(page, 'ex-m', 10);
      await page.click('[data-testid="ex-run"]');
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-cancel"]:not([disabled])'));
      expect(await text(page, 'ex-status')).toMatch(/^Scoring/);
      // The first counted step can take seconds on a loaded machine: waited for by progress, not expect.poll's 1 s.
      await waitWhileProgressing(page, () => /^Scoring: .+ \(\d+\/\d+\)$/.test(document.querySelector('[data-testid="ex-status"]')?.textContent?.trim() ?? ''));
      // A generation queued behind it: the explorer's Cancel must not cancel it (each panel cancels its own jobs).
      await page.click('[data-testid="inf-run"]');
      expect(await text(page, 'inf-status')).not.toBe('cancelled');
      await page.click('[data-testid="ex-cancel"]');
      expect(await text(page, 'ex-status')).toBe('Cancelled. The last finished result stays below.');
      expect(await text(page, 'inf-status')).not.toBe('cancelled');
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.getAttribute('data-done'));
      expect(await text(page, 'inf-output')).toContain('The capital of Peru is');
      expect(await page.isDisabled('[data-testid="ex-cancel"]')).toBe(true);
      expect(await page.isEnabled('[data-testid="ex-run"]')).toBe(true);
      expect(await page.isHidden('[data-testid="ex-progress"]')).toBe(true);
      expect(await attr(page, 'ex-status', 'data-done')).toBe(first);
      // The last finished result is still shown and still re-judged on the page.
      expect(await page.locator('[data-testid^="ex-strip-"] .strip').count()).toBe(strips);

      // A new job runs to the end on the restarted worker (which loaded the model again).
      await setSlider(page, 'ex-k', 2);
      await setSlider(page, 'ex-m', 0);
      await page.click('[data-testid="ex-run"]');
      await waitWhileProgressing(page, (before) => {
        const done = document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done');
        return done && done !== before;
      }, first);
      expect(await text(page, 'ex-status')).toMatch(FUNNEL);
      await expect.poll(() => text(page, 'load-status')).toMatch(/reloaded after cancel/);
      expect(await text(page, 'backend')).toBe('backend: wasm');

      // The Inference panel: a generation cancelled at once, then one that finishes. Run and Cancel are clicked in one
      // task of the page, so the cancel reaches the worker before any answer can (a loaded model answers in ~0.1 s,
      // faster than two Playwright clicks).
      await page.evaluate(() => {
        (document.querySelector('[data-testid="inf-run"]') as HTMLButtonElement).click();
        (document.querySelector('[data-testid="inf-cancel"]') as HTMLButtonElement).click();
      });
      await expect.poll(() => text(page, 'inf-status')).toBe('cancelled');
      expect(await page.isEnabled('[data-testid="inf-run"]')).toBe(true);
      expect(await page.isDisabled('[data-testid="inf-cancel"]')).toBe(true);
      await page.click('[data-testid="inf-run"]');
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.getAttribute('data-done'));
      expect(await text(page, 'inf-status')).toMatch(/^\d+ calls? · wasm · /);
      expect(await text(page, 'inf-output')).toContain('The capital of Peru is');

      await page.screenshot({ path: join(OUT, 'auto-backend.png'), fullPage: true });
      expectCleanPage({ errors, foreign });
    });
  }, TEST_CAP_MS);
});
