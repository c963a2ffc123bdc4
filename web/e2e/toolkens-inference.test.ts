/**
 * Generation with toolkens in the Inference panel, in the real browser (headless Chromium, WASM, models/default):
 *   - before any toolkens, and after a file made for another model is refused, the panel offers no toolken mode, and
 *     the worker itself refuses a generation request carrying that file's rows (its digest is not the page's model's);
 *   - with a file trained in Node (`toolkensTrain`, as `toolformer toolkens train`), the page's toolken generation
 *     equals `toolformer generate --toolkens F --json` (the CLI in a child process) for the same file and options:
 *     the same text and the same calls, in constrained mode (a QA call fails and backs off, a Calculator call runs)
 *     and in free mode; each call shows inline where its toolken fired, each failure as a back-off;
 *   - Cancel stops the panel's toolken generation; a refused file opened afterwards leaves the toolkens in use as they
 *     were: generating again gives the Node file's output.
 * Waits are bounded by progress (progress-wait.ts). RECORD_WEB=1 (`npm run docs:web`) also writes the panel's
 * screenshot to web/screenshots/inference-toolkens.png and the generations to web/e2e/results/toolkens-inference.md
 * (web/README.md's table, included by `npm run docs`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../pipeline/node/testing/cli-child.ts';
import { MAX_NEW_TOKENS } from '../src/ui/inference.ts';
import { openPage, skipWithoutChromium, textOf, withBrowser } from './browser.ts';
import { TEST_CAP_MS, waitWhileProgressing } from './progress-wait.ts';
import { repoRoot, webDir } from './serve.ts';
import { expectCleanPage, servedForSuite, RECORD } from './suite.ts';
import { TOOLKENS_MODEL, writeToolkensFiles } from './toolkens-files.ts';

const MODEL = TOOLKENS_MODEL;
const EXPLORER = 'model=default&backend=wasm&tools=Calculator&k=1&m=0&own=&control=0';
const DATE = '2026-12-02';
const OUT = join(repoRoot, 'out/web-test/toolkens-inference');
/** Where RECORD_WEB=1 writes the generations, as a Markdown table. */
const RESULTS = join(webDir, 'e2e/results/toolkens-inference.md');

interface Case { prompt: string; mode: 'free' | 'constrained'; bias: number }
/**
 * Measured on the file trained below: constrained at bias 3, QA's proposer asks about "Tom" (unknown: back-off) and
 * the Calculator's call 48 - 37 runs; free at bias 3, the 1.9M model writes no parsable argument (two back-offs).
 */
const CASES: Case[] = [
  { prompt: 'Tom had 37 apples and got 48 more. In all, Tom has', mode: 'constrained', bias: 3 },
  { prompt: 'The capital city of Kyrgyzstan is', mode: 'free', bias: 3 },
];

type Call = { tool: string; input: string; result?: string; error?: string };
interface Output { text: string; calls: Call[] }

let dir: string;
let nodeFile: string;
let foreignFile: string;
const nodeOutputs: Output[] = [];

/** `toolformer generate --toolkens` in a child process: the CLI's JSON record. */
async function nodeGenerate(c: Case): Promise<Output> {
  const r = await runCli(['generate', c.prompt, '--model', MODEL, '--toolkens', nodeFile, '--toolken-bias', String(c.bias),
    '--toolken-mode', c.mode, '--max-new-tokens', String(MAX_NEW_TOKENS), '--date', DATE, '--seed', '0', '--json'], repoRoot);
  expect(r.code, r.stderr).toBe(0);
  const { text, calls } = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Output & { prompt: string };
  return { text, calls };
}

/** The generation the panel shows: its text (the output without the prompt and the toolken notes) and its calls. */
async function shownOutput(page: Page): Promise<Output & { notes: { kind: string; text: string }[] }> {
  return page.evaluate(() => {
    const out = document.querySelector('[data-testid="inf-output"]')!;
    const text = [...out.children].filter((e) => !e.matches('.prompt, .toolken, .backoff')).map((e) => e.textContent).join('');
    const notes = [...out.querySelectorAll('mark.toolken, mark.backoff')].map((e) => ({ kind: e.className, text: e.textContent! }));
    const calls = [...document.querySelectorAll<HTMLElement>('[data-testid="inf-calls"] li')].map((li) => JSON.parse(li.dataset.call!));
    return { text, calls, notes };
  });
}

async function generateInPage(page: Page, c: Case): Promise<void> {
  await page.fill('[data-testid="inf-prompt"]', c.prompt);
  await page.selectOption('[data-testid="inf-toolken-mode"]', c.mode);
  await page.fill('[data-testid="inf-toolken-bias"]', String(c.bias));
  await page.click('[data-testid="inf-run"]');
  await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.getAttribute('data-done'));
}

/** The recorded generations: what both sides wrote, and the page's time from its status line. */
function resultsTable(rows: { c: Case; out: Output; status: string }[], browser: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, '↵');
  const call = (c: Call) => `\`${esc(`${c.tool}(${c.input})`)}\` ${c.error === undefined ? `→ \`${esc(c.result!)}\`` : `✗ ${esc(c.error)} (back-off)`}`;
  return [
    '# Toolken generation in the Inference panel',
    '',
    `Recorded ${new Date().toISOString().slice(0, 10)} by \`npm run docs:web\` (\`web/e2e/toolkens-inference.test.ts\`), ${browser}, WASM, \`models/default\` with toolkens`,
    `trained in Node (\`toolkensTrain\`, 3 epochs at lr 1e-3 on the bundled run, seed 1); ${MAX_NEW_TOKENS} new tokens at most. For every row the page's text and calls`,
    'equal `toolformer generate "<prompt>" --toolkens F --toolken-mode <mode> --toolken-bias <bias> --json` on the same file.',
    '',
    '| prompt | tool mode, bias | calls, in order (a failed one backs off to the next candidate) | text after the prompt | page |',
    '|---|---|---|---|--:|',
    ...rows.map(({ c, out, status }) => `| ${esc(c.prompt)} | ${c.mode}, ${c.bias} | ${out.calls.map(call).join('; ')} | \`${esc(out.text)}\` | ${/([\d.]+ s)$/.exec(status)?.[1] ?? ''} |`),
    '',
  ].join('\n');
}

async function expectNodeOutput(page: Page, i: number): Promise<void> {
  const shown = await shownOutput(page);
  const node = nodeOutputs[i];
  console.info(`toolkens inference e2e: ${CASES[i].mode}, bias ${CASES[i].bias}: ${JSON.stringify(node)}`);
  expect({ text: shown.text, calls: shown.calls }).toEqual(node);
  // One note where each toolken fired: a back-off for each failed call, the call for the one that ran.
  expect(shown.notes.map((n) => n.kind)).toEqual(node.calls.map((c) => (c.error === undefined ? 'toolken' : 'backoff')));
  node.calls.forEach((c, k) => expect(shown.notes[k].text).toBe(c.error === undefined
    ? `⟨${c.tool}⟩ ${c.tool}(${c.input || '…'}) →` : `⟨${c.tool}⟩ ${c.tool}(${c.input || '…'}) ✗ ${c.error}; next candidate`));
  expect(await textOf(page, 'inf-status')).toMatch(new RegExp(`^${node.calls.length} calls? from toolkens · wasm · `));
}

describe.skipIf(skipWithoutChromium('toolken generation in headless Chromium'))('toolken generation in headless Chromium', () => {
  const served = servedForSuite('toolkens-inference');

  beforeAll(async () => {
    ({ dir, nodeFile, foreignFile } = await writeToolkensFiles('toolkens-inference-'));
    for (const c of CASES) nodeOutputs.push(await nodeGenerate(c));
  }, TEST_CAP_MS);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('generates with toolkens as the CLI does; a refused file never reaches generation', async () => {
    // What the cases exercise, in Node: a back-off and a call that runs, and free mode's failures.
    expect(nodeOutputs[0].calls.some((c) => c.error !== undefined) && nodeOutputs[0].calls.some((c) => c.result !== undefined)).toBe(true);
    expect(nodeOutputs[1].calls.length).toBeGreaterThan(0);
    await withBrowser({ webgpu: false }, async (browser) => {
      const { page, errors, foreign } = await openPage(browser, `${served.url}?${EXPLORER}`);
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'));
      const toolkenOption = '[data-testid="inf-calls-from"] option[value="toolkens"]';
      expect(await page.locator(toolkenOption).isDisabled()).toBe(true);

      // Another model's file: refused by the Toolkens panel, so the Inference panel still has none …
      await page.setInputFiles('[data-testid="tk-file"]', foreignFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens === 'refused');
      expect(await page.locator(toolkenOption).isDisabled()).toBe(true);
      expect(await textOf(page, 'inf-toolkens-note')).toBe("Toolkens: none loaded for the page's model (open or train them in the Toolkens panel below).");
      // … and the worker refuses its rows even when asked directly.
      const direct = await page.evaluate(async ({ bytes, date, maxNewTokens }) => {
        const { client } = (globalThis as unknown as { toolformer: { client: { request(type: string, body: unknown): Promise<unknown> } } }).toolformer;
        const weights = new Float32Array(new Uint8Array(bytes).buffer);
        try {
          await client.request('generate', { params: {
            modelUrl: null, prompt: 'The capital city of Kyrgyzstan is', tools: true, topK: 10, maxNewTokens, date,
            toolkens: { rows: { tools: ['QA'], hiddenSize: 256, weights }, modelDigest: 'f'.repeat(64), bias: 1000, mode: 'constrained' },
          } });
          return 'generated';
        } catch (e) {
          return (e as Error).message;
        }
      }, { bytes: [...new Uint8Array(256 * 4)], date: DATE, maxNewTokens: MAX_NEW_TOKENS });
      expect(direct).toMatch(/^toolkens: trained on another model \(digest f{12}, the page's model is [0-9a-f]{12}\); not used$/);

      // The Node file: the panel offers toolkens, says in one line which model they run on, and matches the CLI.
      await page.setInputFiles('[data-testid="tk-file"]', nodeFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens === 'loaded');
      expect(await page.locator(toolkenOption).isEnabled()).toBe(true);
      await page.selectOption('[data-testid="inf-calls-from"]', 'toolkens');
      expect(await textOf(page, 'inf-toolkens-note')).toBe(
        'Toolkens node.safetensors (Calculator, QA, Calendar, Translate) belong to models/default, the page\'s model: toolken generation runs on it, not on models/toolformer.');
      await page.fill('[data-testid="inf-date"]', DATE);
      const recorded: Parameters<typeof resultsTable>[0] = [];
      for (const [i, c] of CASES.entries()) {
        await generateInPage(page, c);
        await expectNodeOutput(page, i);
        recorded.push({ c, out: nodeOutputs[i], status: await textOf(page, 'inf-status') });
        if (i === 0) {
          const shots = RECORD ? [OUT, join(webDir, 'screenshots')] : [OUT];
          for (const d of shots) {
            mkdirSync(d, { recursive: true });
            await page.locator('#inference').screenshot({ path: join(d, 'inference-toolkens.png') });
          }
        }
      }

      writeFileSync(join(OUT, 'toolkens-inference.md'), resultsTable(recorded, `Chromium ${browser.version()}`));
      if (RECORD) writeFileSync(RESULTS, resultsTable(recorded, `Chromium ${browser.version()}`));

      // Cancel stops this panel's job only: the explorer keeps its result.
      await page.evaluate(() => {
        (document.querySelector('[data-testid="inf-run"]') as HTMLButtonElement).click();
        (document.querySelector('[data-testid="inf-cancel"]') as HTMLButtonElement).click();
      });
      await waitWhileProgressing(page, () => document.querySelector('[data-testid="inf-status"]')?.textContent === 'cancelled');
      expect(await page.locator('[data-testid="ex-status"]').getAttribute('data-done')).not.toBeNull();

      // A refused file afterwards changes nothing: the toolkens in use are still the Node file's.
      await page.setInputFiles('[data-testid="tk-file"]', foreignFile);
      await waitWhileProgressing(page, () => document.body.dataset.toolkens === 'refused');
      expect(await textOf(page, 'inf-toolkens-note')).toMatch(/^Toolkens node\.safetensors /);
      await generateInPage(page, CASES[0]);
      await expectNodeOutput(page, 0);
      expectCleanPage({ errors, foreign });
    });
  }, TEST_CAP_MS);
});
