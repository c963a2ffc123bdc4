/**
 * waitWhileProgressing on a real page (headless Chromium, no app): it waits while a status line moves, fails within
 * the stall limit once nothing moves, and its message carries what the page and its worker logged last — the
 * evidence a stalled CI run needs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launch, skipWithoutChromium } from './browser.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';

let browser: Browser;

describe.skipIf(skipWithoutChromium('waitWhileProgressing'))('waitWhileProgressing', () => {
  beforeAll(async () => {
    browser = await launch({ webgpu: false });
  }, TEST_CAP_MS);
  afterAll(async () => browser?.close());

  it('waits while the status moves (longer than the stall limit in all), then resolves', async () => {
    const page = await browser.newPage();
    // The status changes every 300 ms for ~12 s, then the page is done: longer than the stall limit used below (1 s)
    // and than one poll of the wait (5 s), so the wait must see the movement to go on.
    await page.setContent(`<p role="status" id="s">0</p><script>
      let n = 0; const t = setInterval(() => { document.getElementById('s').textContent = String(++n);
      if (n === 40) { clearInterval(t); document.body.dataset.done = 'yes'; } }, 300);</script>`);
    await waitWhileProgressing(page, () => document.body.dataset.done === 'yes', undefined, { stallMs: 1_000 });
    expect(await page.textContent('#s')).toBe('40');
    await page.close();
  }, TEST_CAP_MS);

  it('fails once nothing moves, naming the status and what the page and its worker logged last', async () => {
    const page = await browser.newPage();
    await page.setContent(`<p role="status">loading: session…</p><script>
      console.error('thread worker failed to start');
      new Worker(URL.createObjectURL(new Blob(["console.warn('from the worker')"], { type: 'text/javascript' })));</script>`);
    await expect.poll(async () => (await page.consoleMessages()).length).toBe(2);
    const error = await waitWhileProgressing(page, () => false, undefined, { stallMs: 1_000 }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^the page made no progress for 1 s; it shows: loading: session…; the page said last: /);
    expect((error as Error).message).toContain('error: thread worker failed to start');
    expect((error as Error).message).toContain('warning: from the worker');
    await page.close();
  }, TEST_CAP_MS);
});
