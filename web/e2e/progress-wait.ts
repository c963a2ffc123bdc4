/**
 * Waits in the browser tests bounded by progress, not by the clock (issue 33 §1): a test waits as long as the page
 * keeps moving — a status line or a progress bar changes — and fails only when nothing has moved for STALL_MS, or
 * after TEST_CAP_MS in all. A loaded machine makes the page slower, not stuck, so it no longer fails the test; a hung
 * worker still does, within STALL_MS of its last step. Both limits are stated in README.md (Tests).
 */
import type { Page } from 'playwright-core';

/** A wait fails when nothing on the page has moved for this long. */
export const STALL_MS = 180_000;
/** The most one browser test (or its set-up) may take in all: the vitest timeout of every browser test. */
export const TEST_CAP_MS = 1_800_000;

/** What the page shows of its progress: every status line's text and every progress bar's value, joined. */
function pageProgress(): string {
  const parts: string[] = [];
  for (const el of document.querySelectorAll('[role="status"], [data-testid$="-status"], progress')) {
    parts.push(el instanceof HTMLProgressElement ? `${el.value}/${el.max}` : (el.textContent ?? '').trim());
  }
  return parts.join(' | ');
}

/**
 * The page's last console messages and uncaught errors (its workers' included), for a failed wait's message: a stall
 * names the status line, and this says what the page and its workers said before it (a thread worker that failed
 * to start, a rejected promise).
 */
async function lastWords(page: Page, count = 12): Promise<string> {
  const messages = (await page.consoleMessages().catch(() => [])).slice(-count).map((m) => `${m.type()}: ${m.text()}`);
  const errors = (await page.pageErrors().catch(() => [])).slice(-count).map((e) => `pageerror: ${e.message}`);
  const said = [...messages, ...errors];
  return said.length ? `; the page said last: ${said.join(' ‖ ')}` : '; the page logged nothing';
}

/**
 * Resolves once `done(arg)` (a function, or an expression as a string) is truthy in the page. Rejects when the page's progress (status lines, progress bars)
 * has not changed for `stallMs`, or after `capMs`, naming what the page showed last.
 */
export async function waitWhileProgressing<A>(
  page: Page,
  done: string | ((arg: A) => unknown),
  arg?: A,
  { stallMs = STALL_MS, capMs = TEST_CAP_MS }: { stallMs?: number; capMs?: number } = {},
): Promise<void> {
  const start = Date.now();
  let last = await page.evaluate(pageProgress);
  let movedAt = Date.now();
  for (;;) {
    try {
      await page.waitForFunction(done as Parameters<Page['waitForFunction']>[0], arg, { timeout: 5_000, polling: 250 });
      return;
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TimeoutError')) throw error;
    }
    const now = await page.evaluate(pageProgress);
    if (now !== last) {
      last = now;
      movedAt = Date.now();
    }
    if (Date.now() - movedAt > stallMs) throw new Error(`the page made no progress for ${stallMs / 1000} s; it shows: ${last}${await lastWords(page)}`);
    if (Date.now() - start > capMs) throw new Error(`not done after ${capMs / 1000} s (still moving); the page shows: ${last}${await lastWords(page)}`);
  }
}
