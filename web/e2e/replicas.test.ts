/**
 * Published-format replicas in the real browser (headless Chromium, WASM): a q4f16 file with a float16 KV cache and
 * float16 logits, its weights as external data (model_q4f16.onnx + model_q4f16.onnx_data, announced in config.json
 * as Transformers.js reads it), opened with `?dtype=q4f16`. The worked examples' losses (the Calculator's among them)
 * equal the Node pipeline's on the same file within 1e-2 nats (float16 logits; measured in onnxruntime-web under
 * Node: 1.6e-3). The replica is written under models/ at test time (the app serves /models/<name>/) and removed.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../pipeline/node/load-model.ts';
import { writeReplicas } from '../../pipeline/onnx/replicas.ts';
import type { GoldenResult } from '../src/analysis-types.ts';
import { GOLDEN_CASES, scoreGolden } from '../src/golden.ts';
import { launch, openPage, skipWithoutChromium, textOf } from './browser.ts';
import { buildApp, repoRoot, serveApp, type Served } from './serve.ts';

const NAME = 'replica-q4f16-e2e';
const DIR = join(repoRoot, 'models', NAME);
let served: Served;
let nodeGolden: GoldenResult[];

describe.skipIf(skipWithoutChromium('published-format replicas in headless Chromium'))('published-format replicas in headless Chromium', () => {
  beforeAll(async () => {
    await writeReplicas(DIR, { dtypes: ['q4f16'], externalData: true });
    await buildApp();
    served = await serveApp();
    const lm = await loadModel(DIR, { dtype: 'q4f16' });
    nodeGolden = await scoreGolden(lm, GOLDEN_CASES);
    await lm.release();
  }, 240_000);

  afterAll(async () => {
    await served?.close();
    await rm(DIR, { recursive: true, force: true });
  });

  it('loads the q4f16 external-data replica on WASM and scores the worked calls as Node does', async () => {
    const browser = await launch({ webgpu: false });
    try {
      const url = `${served.url}?model=${NAME}&backend=wasm&dtype=q4f16&tools=Calculator&k=2&m=0&tauF=0.5`;
      const { page, errors, foreign } = await openPage(browser, url);
      await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 120_000 });
      expect(await page.evaluate(() => document.body.dataset.ready)).toBe('true');
      expect(await textOf(page, 'backend')).toBe('backend: wasm');
      const browserGolden = (await page.evaluate(
        (cases) => (globalThis as unknown as { toolformer: { client: { request(t: string, b: unknown): Promise<unknown> } } })
          .toolformer.client.request('golden', { cases }),
        GOLDEN_CASES,
      )) as GoldenResult[];
      expect(browserGolden).toHaveLength(nodeGolden.length);
      expect(GOLDEN_CASES.some((c) => c.tool === 'Calculator')).toBe(true);
      browserGolden.forEach((b, i) => {
        for (const key of ['noCall', 'callOnly', 'withResult'] as const) {
          expect(Math.abs(b.losses[key] - nodeGolden[i].losses[key]), `case ${i} (${GOLDEN_CASES[i].tool}) ${key}`).toBeLessThan(1e-2);
        }
      });
      expect(errors).toEqual([]);
      expect(foreign).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 300_000);
});
