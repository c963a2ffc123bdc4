// The scale-out path issue 45 names: one `toolformer serve` (the GPU machine) scoring for two `toolformer worker`s
// that take a queued run's chunks from Redis, scoring at the same time. The run writes what one in-process
// `--workers 1` run on the same model writes, byte for byte (config.json aside: it records the server's URL as the
// model, and no probe-cache note), and so does one `annotate --model <URL>` against the same server afterwards (its
// backend's caches left as the workers' requests left them). Over two backends:
// - ONNX (models/tiny-random);
// - llama.cpp on the CPU: models/default converted by `toolformer convert --to gguf` (f32). The backend evaluates one
//   request at a time and reuses each sequence's KV cache past the common prefix with its previous request, so two
//   clients' requests interleaved in the server leave caches no in-process run has; the bytes must not depend on it.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { convertCommand } from '../commands/convert-command.ts';
import { ROOT, TINY_MODEL } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { annotateWith, chunksAtOnce, cliStarter, FILES, queueRuns, workerArgs } from '../testing/scale-runs.ts';
import { startServe } from '../testing/serving-url.ts';

const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill('SIGKILL');
});

const GROUP = 'two queue workers sharing one toolformer serve (Redis + BullMQ)';

/** One backend's case: the model served and run in-process, the tokenizer the clients check the server against. */
function backendCase(name: string, tokenizer: string, model: (tmp: string) => Promise<string>) {
  const tmp = mkdtempSync(join(tmpdir(), 'serve-queue-'));
  let made = '';
  const runs = queueRuns(`${GROUP}, ${name}`, tmp, { model: async () => (made = await model(tmp)) });
  return { name, tmp, tokenizer, model: () => made, ...runs };
}

const CASES = [
  backendCase('ONNX (models/tiny-random)', TINY_MODEL, async () => TINY_MODEL),
  backendCase('llama.cpp on the CPU (models/default as an f32 GGUF)', resolve(ROOT, 'models/default'), (tmp) =>
    convertCommand(resolve(ROOT, 'models/default'), { to: 'gguf', dtype: 'f32', out: join(tmp, 'default.gguf') })),
];

describe.each(CASES)(`${GROUP}: $name`, (backend) => {
  const { start, killStarted } = cliStarter(backend.tmp);
  afterEach(killStarted);

  it.skipIf(backend.noRedis)('the queued run, then one served run, each equal one in-process run byte for byte; the workers scored at once and calls were kept', async () => {
    const { tmp, redis } = backend;
    const serving = startServe(backend.model());
    servers.push(serving.child);
    const url = await serving.url;
    const served = ['--model', url, '--tokenizer', backend.tokenizer];
    const coordinator = start(annotateWith(url, 'queued', '--queue', redis().url, '--tokenizer', backend.tokenizer));
    const workers = [start([...workerArgs(redis()), ...served]), start([...workerArgs(redis()), ...served])];
    const concurrent = chunksAtOnce(workers);
    const [run, ...done] = await Promise.all([coordinator.done, ...workers.map((w) => w.done)]);
    expect(run.code, run.stderr).toBe(0);
    for (const w of done) expect(w.code, w.stderr).toBe(0);
    // Both workers took chunks (four chunks, one process each), and at some moment both were scoring.
    for (const w of workers) expect(w.log()).toMatch(/chunk \d+ done/);
    expect(concurrent(), workers.map((w) => w.log()).join('\n---\n')).toBe(true);
    // One served run more, against the server whose caches the workers left.
    const single = await start(annotateWith(url, 'single', '--workers', '1', '--tokenizer', backend.tokenizer)).done;
    expect(single.code, single.stderr).toBe(0);

    const read = (out: string, file: string) => readFileSync(join(tmp, out, file), 'utf8');
    const kept = read('one', 'calls.jsonl').trim().split('\n').filter((l) => JSON.parse(l).kept === true);
    expect(kept.length).toBeGreaterThan(0); // a comparison that covers the filter's verdicts, not only its drops
    for (const out of ['queued', 'single']) {
      for (const f of FILES.filter((f) => f !== 'config.json')) expect(read(out, f), `${out}/${f}`).toBe(read('one', f));
      const config = JSON.parse(read(out, 'config.json'));
      expect(config.model).toBe(url);
      // The rest of the plan is the same, but for the probe-cache note: a served model's verdicts are not cached.
      const { model: _a, ...rest } = config;
      const { model: _b, probeCache, ...restOne } = JSON.parse(read('one', 'config.json'));
      expect(probeCache).toBeDefined();
      expect(rest).toEqual(restOne);
    }
  }, TEST_CAP_MS);
});
