/**
 * Test/bench harness: headless Debian Chromium driven by playwright-core. `webgpu: true` adds
 * `--enable-unsafe-webgpu` (the adapter is `google|swiftshader` on a machine without a GPU); without it,
 * `requestAdapter()` returns null and the app runs on WASM.
 */
import type { GoldenCase, GoldenResult } from '../src/analysis-types.ts';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { skipUnlessInstalled } from '../../pipeline/node/testing/system-requirement.ts';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser tests run here: in CI a missing Chromium fails the file; elsewhere the group is skipped, said once. */
export const skipWithoutChromium = (group: string): boolean =>
  skipUnlessInstalled(group, existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM}`);

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launch(opts: { webgpu: boolean }): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: opts.webgpu ? [...FLAGS, '--enable-unsafe-webgpu'] : FLAGS,
  });
}

/** Runs `use` with a fresh Chromium (`opts` as launch's) and closes the browser however `use` ends. */
export async function withBrowser<T>(opts: { webgpu: boolean }, use: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await launch(opts);
  try {
    return await use(browser);
  } finally {
    await browser.close();
  }
}

export interface OpenPage {
  page: Page;
  /** Console errors, uncaught page errors and failed requests, as they happen. */
  errors: string[];
  /** Requests to any origin other than the app's. */
  foreign: string[];
}

/** Open `url` and record console errors and any request leaving the page's origin. */
export async function openPage(browser: Browser, url: string): Promise<OpenPage> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors: string[] = [];
  const foreign: string[] = [];
  const origin = new URL(url).origin;
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => errors.push(`requestfailed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.context().on('request', (r) => {
    const u = r.url();
    if (!u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')) foreign.push(u);
  });
  // A failed navigation names the status the server answered (Chromium's net::ERR_HTTP_RESPONSE_CODE_FAILURE does not).
  let answered = 'no response';
  page.once('response', (r) => (answered = `HTTP ${r.status()} ${r.statusText()} for ${r.url()}`));
  try {
    await page.goto(url);
  } catch (error) {
    throw new Error(`${(error as Error).message.split('\n')[0]} (${answered})`);
  }
  return { page, errors, foreign };
}

/**
 * The explorer's status line after a run: the funnel (src/funnel.ts), the tokens and the time —
 * "80 proposed → 50 executed → 50 scored → 2 kept · 48 tokens, 21.05 s."
 */
export const FUNNEL = /^(\d+) proposed → (\d+) executed → (\d+) scored → (\d+) kept · (\d+) tokens, ([\d.]+) s/;

/** The head of a recorded browser measurement (pipeline/docs/renderers.ts BrowserMeasurement): when, how, where. */
export const measuredHere = (browser: Browser, o: { command: string; server: string; backend: string }) => ({
  measured: new Date().toISOString(),
  command: o.command,
  server: o.server,
  page: 'the default page, no query parameters',
  cores: cpus().length,
  loadAverage: +loadavg()[0].toFixed(1),
  browser: `Chromium ${browser.version()}`,
  backend: o.backend,
});

/** The trimmed text of the element with `data-testid` `id` ('' when it has none). */
export const textOf = async (page: Page, id: string): Promise<string> => ((await page.textContent(`[data-testid="${id}"]`)) ?? '').trim();

/** Set a range input to `value` and fire its input event, as a drag would. */
export async function setSlider(page: Page, id: string, value: number): Promise<void> {
  await page.locator(`[data-testid="${id}"]`).evaluate((el, v) => {
    const input = el as HTMLInputElement;
    input.value = String(v);
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }, value);
}

/** L_a, L_b, L_c of `cases` from the page's own model worker (the app exposes its client as `toolformer.client`). */
export function scoreGoldenInPage(page: Page, cases: readonly GoldenCase[]): Promise<GoldenResult[]> {
  return page.evaluate(
    (c) => (globalThis as unknown as { toolformer: { client: { request(t: string, b: unknown): Promise<unknown> } } })
      .toolformer.client.request('golden', { cases: c }),
    cases as GoldenCase[],
  ) as Promise<GoldenResult[]>;
}
