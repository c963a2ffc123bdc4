/**
 * A describe block's served app: built and served before its tests, closed after them (the set-up every browser
 * test file but the dev-server one shares).
 */
import { afterAll, beforeAll } from 'vitest';
import { TEST_CAP_MS } from './progress-wait.ts';
import { type BuildOptions, type Served, buildAndServe } from './serve.ts';

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
