/**
 * The page a newcomer meets (issue 49), on the production build (`npm run web:build` + `vite preview`) in Chromium:
 *
 * - First visit on the WASM path, 1280×800: the bytes the server sends until the explorer's first result (counted on
 *   its sockets: headers and bodies as sent, compressed) stay ≤ 12 MB — the WASM-only runtime (no JSEP build), the
 *   model and runtime sent brotli-compressed — and the time to that result; recorded by `npm run docs:web`
 *   (web/e2e/results/first-visit-build.json → web/README.md).
 * - The explorer's scatter lies within the first 800 px; it has one point per executed call (the calls without L_b
 *   at their bound, marked so); the funnel line is shown once and the legend and the tables' headings count with it;
 *   hovering a point lists every point drawn within a few pixels of it.
 * - One colour and one marker shape per tool, keyed on the registry, equal in the scatter, the p_i strips and the run
 *   viewer (npm start's calls); a train.jsonl opened there is named as such; "Open the last run" opens the newest
 *   out/<run>/calls.jsonl.
 * - Accessibility: a skip link first in the tab order that moves focus to the main content; aria-valuetext on every
 *   slider.
 * - 390×844: no horizontal scroll with every table and fold open; the scatter drawn at its shown width.
 * - The backend selector reloads the page on the chosen backend.
 * - The build bundles no chunk twice (the page's tool ranking runs in a worker of the model worker's script).
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNNEL, measuredHere, openPage, skipWithoutChromium, textOf, withBrowser } from './browser.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { expectCleanPage, RECORD, START_CALLS } from './suite.ts';
import { buildApp, repoRoot, serveApp, type Served, webDir } from './serve.ts';

const GROUP = 'the explorer first: funnel, every executed call, tool styles, phone layout, first-visit bytes (Chromium, WASM)';
const OUT_DIR = join(repoRoot, 'out/web-test/dist-explorer-first');
const RESULTS = join(webDir, 'e2e/results/first-visit-build.json');
/** A run folder this test writes under out/ (the newest run while it lasts), for "Open the last run". */
const LAST_RUN = join(repoRoot, 'out/e2e-last-run');
const BYTES_LIMIT = 12e6;

let served: Served;

/** The build's files at `paths` (URL paths), largest compressed first: name, brotli size and raw size, bytes. */
function fetchedFiles(paths: readonly string[]): { file: string; compressed: number; raw: number }[] {
  return [...new Set(paths)].map((path) => join(OUT_DIR, path)).filter((file) => existsSync(file) && statSync(file).isFile()).map((file) => ({
    file: basename(file).replace(/-[\w-]{8}(\.\w+)$/, '$1'),
    compressed: existsSync(`${file}.br`) ? statSync(`${file}.br`).size : statSync(file).size,
    raw: statSync(file).size,
  })).sort((a, b) => b.compressed - a.compressed);
}

const done = () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done');

/** Per tool: the colours and shapes its marks carry in `selector`'s elements (data-tool or a testid suffix). */
function stylesIn(page: Page, selector: string, toolOf: string) {
  return page.locator(selector).evaluateAll((els, attr) => els.map((e) => ({
    tool: attr === 'data-tool' ? e.getAttribute('data-tool')! : e.getAttribute('data-testid')!.replace(/^[a-z]+-(strip|tool)-/, ''),
    color: e.getAttribute('data-color'),
    shape: e.getAttribute('data-shape'),
  })), toolOf);
}

async function checkFirstViewport(page: Page): Promise<void> {
  // The scatter lies within the first 800 px of the page (scrolled to the top).
  await page.evaluate(() => window.scrollTo(0, 0));
  const box = await page.locator('[data-testid="ex-scatter"] .scatter-plot > svg').boundingBox();
  expect(box).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  await page.screenshot({ path: join(repoRoot, 'out/web-test/explorer-first-1280.png') });
  expect(box!.y + box!.height).toBeLessThanOrEqual(800);
}

async function checkFunnel(page: Page): Promise<{ executed: number; kept: number }> {
  const status = await textOf(page, 'ex-status');
  const m = FUNNEL.exec(status);
  expect(m, status).not.toBeNull();
  const [proposed, executed, scored, kept] = m!.slice(1, 5).map(Number);
  // One funnel line on the page: no other element states the counts that way.
  const lines = await page.evaluate(() => [...document.querySelectorAll('body *')].filter((e) =>
    [...e.childNodes].some((n) => n.nodeType === 3 && /\d+ proposed → \d+ executed → \d+ scored → \d+ kept/.test(n.textContent ?? ''))).length);
  expect(lines).toBe(1);
  // Every executed call is a point (the default text's executed calls are all scored); the bound ones are marked.
  const points = page.locator('[data-testid^="ex-point-"]:not([data-testid="ex-point-worked"])');
  expect(await points.count()).toBe(executed);
  expect(scored).toBe(executed);
  const bound = await page.locator('[data-testid^="ex-point-"][data-bound="true"]').count();
  const boundRows = await page.locator('[data-testid="ex-candidates"] td[data-bound="true"]').count();
  expect(bound).toBe(boundRows);
  expect(bound).toBeGreaterThan(0);
  expect(await page.locator('[data-testid="ex-legend-bound"]').textContent()).toMatch(new RegExp(`^${bound} without L_b, drawn at L_a`));
  // The legend and the tables' headings count with the funnel.
  const legend = await page.locator('[data-testid^="ex-legend-"]:not([data-testid="ex-legend-bound"])').allTextContents();
  const perTool = legend.map((t) => /: (\d+) kept of (\d+) executed$/.exec(t)!.slice(1).map(Number));
  expect(perTool.reduce((s, [, n]) => s + n, 0)).toBe(executed);
  expect(perTool.reduce((s, [k]) => s + k, 0)).toBe(kept);
  expect(await textOf(page, 'ex-table-summary')).toBe(`The ${executed} executed calls, ${kept} kept (listed first): results, losses, verdicts`);
  expect(await page.locator('[data-testid="ex-rejected-details"] > summary').textContent()).toMatch(new RegExp(`^The ${proposed - executed} proposed calls not executed`));
  return { executed, kept };
}

/** Hover the point with the most neighbours within 7 px (where the scatter drew them): the detail lists it and each of them. */
async function checkStacks(page: Page): Promise<void> {
  const centres = await page.locator('[data-testid^="ex-point-"]:not([data-testid="ex-point-worked"])').evaluateAll((els) => els.map((e) => ({
    id: e.getAttribute('data-testid')!, x: Number(e.getAttribute('data-x')), y: Number(e.getAttribute('data-y')),
  })));
  const near = (a: { x: number; y: number }, b: { x: number; y: number }) => Math.hypot(a.x - b.x, a.y - b.y) <= 7;
  const best = centres.map((c) => ({ id: c.id, n: centres.filter((d) => near(c, d)).length })).sort((a, b) => b.n - a.n)[0];
  // The default run has stacked calls (several Calculator calls without L_b at nearly the same losses).
  expect(best.n).toBeGreaterThan(1);
  await page.hover(`[data-testid="${best.id}"]`, { force: true });
  expect(await page.locator('[data-testid="ex-scatter-detail"] .point-detail').count()).toBe(best.n);
  expect(await textOf(page, 'ex-detail-stack')).toBe(`${best.n} calls drawn at this spot:`);
}

async function checkToolStyles(page: Page): Promise<void> {
  const registry = await page.evaluate(() => (globalThis as unknown as { toolformer: { loaded: { tools: { name: string }[] } } }).toolformer.loaded.tools.map((t) => t.name));
  const scatter = await stylesIn(page, '[data-testid^="ex-point-"][data-tool]', 'data-tool');
  const strips = await stylesIn(page, '[data-testid^="ex-strip-"]', 'testid');
  await page.setInputFiles('[data-testid="rv-file"]', START_CALLS);
  await expect.poll(() => textOf(page, 'rv-status')).toMatch(/^npm-start-calls\.jsonl: [\d,]+ candidate calls$/);
  const viewer = await stylesIn(page, '[data-testid^="rv-tool-"]', 'testid');
  const styleOf = new Map<string, string>();
  for (const { tool, color, shape } of [...scatter, ...strips, ...viewer]) {
    expect(color, tool).toMatch(/^#[0-9a-f]{6}$/);
    const style = `${color} ${shape}`;
    expect(styleOf.get(tool) ?? style, `${tool} is drawn in two styles`).toBe(style);
    styleOf.set(tool, style);
  }
  // Every tool of the registry appears, each in its own colour and shape, in the registry's order of the palette.
  for (const tool of registry) expect(styleOf.has(tool), tool).toBe(true);
  expect(new Set(registry.map((t) => styleOf.get(t)!.split(' ')[0])).size).toBe(registry.length);
  expect(new Set(registry.map((t) => styleOf.get(t)!.split(' ')[1])).size).toBe(registry.length);
  const legendOrder = await page.locator('[data-testid^="ex-legend-"][data-color]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('ex-legend-'.length)));
  expect(legendOrder).toEqual(registry.filter((t) => legendOrder.includes(t)));
}

async function checkRunViewerFiles(page: Page): Promise<void> {
  // A train.jsonl opened by mistake is named, and where calls.jsonl is said.
  await page.setInputFiles('[data-testid="rv-file"]', join(repoRoot, 'models/toolformer/finetune-data/a.jsonl'));
  await expect.poll(() => textOf(page, 'rv-status')).toMatch(/^a\.jsonl is a run's training file \(train\.jsonl: [\d,]+ texts with their kept calls inlined\), not its candidate calls: open calls\.jsonl/);
  // "Open the last run": the newest out/<run>/calls.jsonl.
  const lines = readFileSync(START_CALLS, 'utf8').trim().split('\n').length;
  await page.click('[data-testid="rv-last"]');
  await expect.poll(() => textOf(page, 'rv-status')).toBe(`out/e2e-last-run/calls.jsonl: ${lines.toLocaleString('en')} candidate calls`);
}

/** The scatter's points are one tab stop; the arrow keys move along them and the detail follows. */
async function checkPointKeys(page: Page): Promise<void> {
  const stops = page.locator('[data-testid="ex-scatter"] [data-testid^="ex-point-"][tabindex="0"]');
  expect(await stops.count()).toBe(1);
  const first = await stops.getAttribute('data-testid');
  await page.focus(`[data-testid="${first}"]`);
  await page.keyboard.press('ArrowRight');
  const second = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  expect(second).toMatch(/^ex-point-/);
  expect(second).not.toBe(first);
  expect(await stops.count()).toBe(1);
  expect(await stops.getAttribute('data-testid')).toBe(second);
  await page.keyboard.press('Home');
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(first);
}

/** aria-valuetext on every slider (the skip link: checkPhone, on a fresh page). */
async function checkSliders(page: Page): Promise<void> {
  const sliders = await page.locator('input[type="range"]').evaluateAll((els) => els.map((e) => ({ id: e.id, value: (e as HTMLInputElement).value, text: e.getAttribute('aria-valuetext') })));
  expect(sliders.length).toBeGreaterThanOrEqual(4);
  for (const s of sliders) expect(s.text, s.id).toMatch(/^\S+ \S/);
  // The log τ_s slider says its threshold, not its step index.
  const tauS = sliders.find((s) => s.id === 'ex-tau-s')!;
  expect(tauS.text).not.toContain(tauS.value === '0' ? 'x' : tauS.value);
  expect(tauS.text).toMatch(/^τ_s (0|\d\.\de[-+]\d+)$/);
}

/** 390×844: no horizontal scroll once every fold and table is open; the scatter drawn 1:1 (its text not shrunk). */
async function checkPhone(browser: Browser): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  try {
    await page.goto(served.url);
    // The skip link is the first stop of the tab order and moves focus to the main content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => [document.activeElement?.getAttribute('data-testid'), document.activeElement?.getAttribute('href')])).toEqual(['skip-link', '#main']);
    expect(await page.locator('[data-testid="skip-link"]').boundingBox().then((b) => b && b.y >= 0)).toBe(true); // shown when focused
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    await waitWhileProgressing(page, done);
    await page.setInputFiles('[data-testid="rv-file"]', START_CALLS);
    await expect.poll(() => textOf(page, 'rv-status')).toMatch(/candidate calls$/);
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => { d.open = true; }));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.screenshot({ path: join(repoRoot, 'out/web-test/explorer-first-390.png'), fullPage: true });
    const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    expect(widths.scroll, 'the page scrolls sideways at 390 px').toBeLessThanOrEqual(widths.client);
    const svg = await page.locator('[data-testid="ex-scatter"] .scatter-plot > svg').evaluate((e) => ({ drawn: Number(e.getAttribute('width')), shown: e.getBoundingClientRect().width }));
    expect(svg.shown).toBeCloseTo(svg.drawn, 0);
    expect(svg.shown).toBeLessThanOrEqual(390);
  } finally {
    await page.close();
  }
}

describe.skipIf(skipWithoutChromium(GROUP))(GROUP, () => {
  beforeAll(async () => {
    await buildApp({ outDir: OUT_DIR });
    served = await serveApp({ outDir: OUT_DIR });
    mkdirSync(LAST_RUN, { recursive: true });
    copyFileSync(START_CALLS, join(LAST_RUN, 'calls.jsonl'));
    const future = new Date(Date.now() + 3_600_000);
    utimesSync(join(LAST_RUN, 'calls.jsonl'), future, future);
  }, TEST_CAP_MS);
  afterAll(async () => {
    await served?.close();
    rmSync(LAST_RUN, { recursive: true, force: true });
  });

  it('bundles no chunk twice: each script of the build under one name (the page holds no copy of the worker\'s tools, mathjs or eld\'s data)', () => {
    const scripts = readdirSync(join(OUT_DIR, 'assets')).filter((f) => f.endsWith('.js'));
    const byName = new Map<string, string[]>();
    for (const f of scripts) {
      const name = f.replace(/-[\w-]{8}\.js$/, '');
      byName.set(name, [...(byName.get(name) ?? []), f]);
    }
    expect([...byName].filter(([, files]) => files.length > 1)).toEqual([]);
    // The scripts a WASM visit needs exist, each once: the page, the model worker, the WASM-only runtime.
    for (const name of ['index', 'worker', 'ort-wasm', 'esm', 'kb']) expect(byName.get(name)?.length, name).toBe(1);
  });

  it('first visit ≤ 12 MB on WASM; the explorer first, one funnel, every executed call, one style per tool, a11y, 390 px', async () => {
    await withBrowser({ webgpu: false }, async (browser) => {
      const before = served.bytesSent();
      const started = Date.now();
      const { page, errors, foreign } = await openPage(browser, served.url);
      await page.setViewportSize({ width: 1280, height: 800 });
      const responses: { url: string; encoding: string | null }[] = [];
      page.on('response', (r) => void r.headerValue('content-encoding').then((encoding) => responses.push({ url: r.url(), encoding }), () => {}));
      await waitWhileProgressing(page, done);
      const firstResultMs = Date.now() - started;
      const bytes = served.bytesSent() - before;
      expect(await textOf(page, 'backend')).toBe('backend: wasm');
      expect(bytes, `first visit sent ${(bytes / 1e6).toFixed(2)} MB`).toBeLessThanOrEqual(BYTES_LIMIT);
      const big = responses.filter((r) => /\.(wasm|onnx)$/.test(new URL(r.url).pathname));
      expect(big.map((r) => new URL(r.url).pathname.replace(/-[\w-]{8}\.wasm$/, '.wasm'))).toEqual(expect.arrayContaining(['/assets/ort-wasm-simd-threaded.wasm', '/models/default/onnx/model.onnx']));
      expect(big.every((r) => r.encoding === 'br'), JSON.stringify(big)).toBe(true);
      expect(responses.some((r) => r.url.includes('.jsep')), 'the JSEP (WebGPU) runtime was fetched on the WASM path').toBe(false);
      const status = await textOf(page, 'ex-status');

      await checkFirstViewport(page);
      const { executed, kept } = await checkFunnel(page);
      await checkStacks(page);
      await checkToolStyles(page);
      await checkRunViewerFiles(page);
      await checkSliders(page);
      await checkPointKeys(page);
      expectCleanPage({ errors, foreign });

      const result = {
        ...measuredHere(browser, {
          command: 'npm run docs:web (web/e2e/explorer-first.test.ts)',
          server: 'the production build (npm run web:build) served by vite preview, its files precompressed (brotli)',
          backend: 'wasm',
        }),
        firstVisitBytes: bytes,
        firstResultSeconds: +(firstResultMs / 1000).toFixed(1),
        funnel: FUNNEL.exec(status)![0].split(' · ')[0],
        executed,
        kept,
        largest: fetchedFiles(responses.map((r) => new URL(r.url).pathname)).slice(0, 3),
        webgpuRuntime: fetchedFiles(readdirSync(join(OUT_DIR, 'assets')).filter((f) => f.includes('.jsep') && f.endsWith('.wasm')).map((f) => `/assets/${f}`))[0],
      };
      mkdirSync(join(repoRoot, 'out/web-test'), { recursive: true });
      writeFileSync(join(repoRoot, 'out/web-test/first-visit-build.json'), JSON.stringify(result, null, 2) + '\n');
      if (RECORD) writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');

      await checkPhone(browser);

      // The backend selector: another choice reloads the page on it.
      await page.selectOption('[data-testid="backend-select"]', 'wasm');
      await page.waitForURL(/[?&]backend=wasm/);
      await waitWhileProgressing(page, () => document.body.dataset.ready);
      expect(await page.inputValue('[data-testid="backend-select"]')).toBe('wasm');
      expect(await textOf(page, 'backend')).toBe('backend: wasm');
    });
  }, TEST_CAP_MS);
});
