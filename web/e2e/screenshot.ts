/**
 * The README's screenshot (web/screenshot.png): the built app in headless Chromium (WASM), models/default when it
 * exists (else models/tiny-random), the explorer's first scoring, and — when a pipeline run exists — its calls.jsonl
 * in the run viewer.
 *
 *   npx tsx web/e2e/screenshot.ts [out/<run>/calls.jsonl]
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openPage } from './browser.ts';
import { buildApp, repoRoot, serveApp, webDir } from './serve.ts';

const model = existsSync(join(repoRoot, 'models/default/onnx/model.onnx')) ? 'default' : 'tiny-random';
const runs = existsSync(join(repoRoot, 'out'))
  ? readdirSync(join(repoRoot, 'out')).map((d) => join(repoRoot, 'out', d, 'calls.jsonl')).filter((f) => existsSync(f))
  : [];
const calls = process.argv[2] ?? runs[0];

await buildApp();
const served = await serveApp();
const browser = await launch({ webgpu: false });
try {
  const { page, errors } = await openPage(browser, `${served.url}?model=${model}&tools=Calculator,QA,Calendar&k=5&m=2&tauF=0.5`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 120_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'), null, { timeout: 300_000 });
  if (calls) await page.setInputFiles('[data-testid="rv-file"]', calls);
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(webDir, 'screenshot.png'), fullPage: true });
  console.log(`web/screenshot.png: model ${model}${calls ? `, run viewer: ${calls}` : ''}; console errors: ${errors.length}`);
} finally {
  await browser.close();
  await served.close();
}
