// The scale-out path issue 45 names: one `toolformer serve` (the GPU machine) scoring for two `toolformer worker`s
// that take a queued run's chunks from Redis. The run writes what one in-process `--workers 1` run writes, byte for
// byte (config.json aside: it records the server's URL as the model, and no probe-cache note).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ROOT, TINY_MODEL } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { annotate, cliStarter, FILES, queueRuns, workerArgs } from '../testing/scale-runs.ts';

const tmp = mkdtempSync(join(tmpdir(), 'serve-queue-'));
const { start, killStarted } = cliStarter(tmp);
afterEach(killStarted);
let server: ChildProcess | undefined;
afterAll(() => void server?.kill('SIGKILL'));

const GROUP = 'two queue workers sharing one toolformer serve (Redis + BullMQ)';
const { noRedis, redis } = queueRuns(GROUP, tmp);

/** `toolformer serve` on the queue tests' model; resolves its /v1 URL. */
function startServe(): Promise<string> {
  server = spawn(process.execPath, [resolve(ROOT, 'pipeline/node/bin.mjs'), 'serve', '--model', TINY_MODEL, '--port', '0', '--quiet'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  server.stderr!.on('data', (d: Buffer) => (err += d));
  return new Promise((done, fail) => {
    server!.stdout!.on('data', (d: Buffer) => {
      out += d;
      const url = /at (http:\/\/\S+\/v1)/.exec(out)?.[1];
      if (url) done(url);
    });
    server!.on('exit', (code) => fail(new Error(`serve exited ${code}: ${err}`)));
  });
}

describe.skipIf(noRedis)(GROUP, () => {
  it('the queued run scored by the server equals one in-process run, byte for byte', async () => {
    const url = await startServe();
    const served = ['--model', url, '--tokenizer', TINY_MODEL];
    const coordinator = start([...annotate('served', '--queue', redis().url), ...served]);
    const workers = [start([...workerArgs(redis()), ...served]), start([...workerArgs(redis()), ...served])];
    const [run, ...done] = await Promise.all([coordinator.done, ...workers.map((w) => w.done)]);
    expect(run.code, run.stderr).toBe(0);
    for (const w of done) expect(w.code, w.stderr).toBe(0);
    // Both workers took chunks (four chunks, one process each).
    for (const w of workers) expect(w.log()).toMatch(/chunk \d+ done/);
    const read = (out: string, file: string) => readFileSync(join(tmp, out, file), 'utf8');
    for (const f of FILES.filter((f) => f !== 'config.json')) expect(read('served', f), f).toBe(read('one', f));
    const config = JSON.parse(read('served', 'config.json'));
    expect(config.model).toBe(url);
    // The rest of the plan is the same, but for the probe-cache note: a served model's verdicts are not cached.
    const { model: _a, ...rest } = config;
    const { model: _b, probeCache, ...restOne } = JSON.parse(read('one', 'config.json'));
    expect(probeCache).toBeDefined();
    expect(rest).toEqual(restOne);
  }, TEST_CAP_MS);
});
