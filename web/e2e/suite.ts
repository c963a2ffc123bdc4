/**
 * What the browser test files share: a describe block's served app (built and served before its tests, closed after
 * them; every file but the dev-server one), the clean-page check they end with, the recording switch and npm start's
 * candidates fixture.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { OpenPage } from './browser.ts';
import { TEST_CAP_MS } from './progress-wait.ts';
import { type BuildOptions, type Served, buildAndServe, webDir } from './serve.ts';

/** `npm run docs:web` sets RECORD_WEB=1: the tests then write their measurements under e2e/results/ and screenshots. */
export const RECORD = process.env.RECORD_WEB === '1';
/** npm start's candidates (tool and usefulness, or usefulnessAtMost where L_b was skipped, of each line of out/start/calls.jsonl), for the run viewer. */
export const START_CALLS = join(webDir, 'e2e/fixtures/npm-start-calls.jsonl');

/**
 * Registers the block's beforeAll (buildAndServe(name, options), under TEST_CAP_MS) and afterAll (close); the Served
 * returned forwards to the server once it is up — read it inside a test, not while the block is being defined.
 */
export function servedForSuite(name: string, options: Omit<BuildOptions, 'outDir'> = {}): Served {
  let served: Served | undefined;
  beforeAll(async () => {
    served = await buildAndServe(name, options);
  }, TEST_CAP_MS);
  afterAll(async () => {
    await served?.close();
  });
  const up = (): Served => {
    if (!served) throw new Error(`the app for ${name} is not served (its beforeAll failed or has not run)`);
    return served;
  };
  return {
    get url() {
      return up().url;
    },
    close: () => up().close(),
    bytesSent: () => up().bytesSent(),
  };
}

/** A clean browser test's last check: the page logged no error, no request failed, and none left the app's origin. */
export function expectCleanPage({ errors, foreign }: Pick<OpenPage, 'errors' | 'foreign'>): void {
  expect({ errors, foreign }).toEqual({ errors: [], foreign: [] });
}
