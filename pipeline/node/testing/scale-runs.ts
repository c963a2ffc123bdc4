/**
 * What the scale-out tests share (scale.test.ts, queue.test.ts, orphans.test.ts): eleven small documents and a bad
 * record in three-item chunks (four chunks), the annotate and worker command lines, a reference `--workers 1` run to
 * compare bytes with, the queue tests' own redis-server, and every child a test starts killed after it.
 */
import { type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT, TINY_MODEL, runCli, spawnCli } from './cli-child.ts';
import { TEST_CAP_MS } from './progress.ts';
import { skipUnlessInstalled } from './system-requirement.ts';
import { RedisServer, hasRedisServer } from '../run/executors/redis-server.ts';

export const FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json'];

/** The annotate command line of a scale-out test on `corpus.jsonl`, into `out`, with `model` (default: tiny-random). */
export const annotateWith = (model: string, out: string, ...extra: string[]) => [
  'annotate', 'corpus.jsonl', '--model', model, '--out', out, '--tools', 'Calculator,Calendar', '--k', '2', '--m', '2',
  '--tau-f', '0.05', '--control-margin', '-1', '--seed', '7', '--quiet', '--chunk', '3', ...extra,
];
export const annotate = (out: string, ...extra: string[]) => annotateWith(TINY_MODEL, out, ...extra);

// One sandboxed process per worker (2 cores); a 2 s lock, so a killed worker's chunk is redone within seconds.
export const workerArgs = (redis: RedisServer, ...extra: string[]) => ['worker', '--queue', redis.url, '--model', TINY_MODEL, '--processes', '1', '--lock-ms', '2000', ...extra];

/** The corpus in `tmp`, and the reference run `one` (--workers 1, in this process's model `model`) on it. */
export async function setUpReference(tmp: string, model = TINY_MODEL): Promise<void> {
  const sample = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(tmp, 'corpus.jsonl'), [...sample.slice(0, 6), '{"id": "bad", "text": 3}', ...sample.slice(6, 11), ''].join('\n'));
  const reference = await runCli(annotateWith(model, 'one', '--workers', '1'), tmp);
  expect(reference.stderr).toBe('');
}

/**
 * A test file's queue runs: skipped with one line where there is no redis-server (testing/system-requirement.ts);
 * before its tests, the reference run (on `model`, made by then: e.g. a GGUF converted before the tests) and a
 * redis-server (started meanwhile); after them `cleanUp`, the server stopped and `tmp` removed. `redis()` is the
 * server, once started.
 */
export function queueRuns(
  group: string,
  tmp: string,
  { cleanUp = () => {}, model = () => TINY_MODEL }: { cleanUp?: () => void; model?: () => string | Promise<string> } = {},
): { noRedis: boolean; redis: () => RedisServer } {
  const noRedis = skipUnlessInstalled(group, hasRedisServer() ? null : 'no redis-server on PATH');
  let server: RedisServer | undefined;
  beforeAll(async () => {
    if (noRedis) return;
    [, server] = await Promise.all([(async () => setUpReference(tmp, await model()))(), RedisServer.start(join(tmp, 'redis'))]);
  }, TEST_CAP_MS);
  afterAll(async () => {
    cleanUp();
    await server?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
  return { noRedis, redis: () => server! };
}

/** Starts CLI children in `tmp`, each with its stderr kept in `log()`; `killStarted()` SIGKILLs those still running. */
export function cliStarter(tmp: string) {
  const started: ChildProcess[] = [];
  const start = (args: string[], detached = false) => {
    const run = spawnCli(args, tmp, undefined, { detached });
    started.push(run.child);
    let log = '';
    run.child.stderr!.on('data', (d: Buffer) => (log += d));
    return { ...run, log: () => log };
  };
  const killStarted = () => {
    for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { start, killStarted };
}

/** Each file of run `out` equals the reference run's. */
export function expectSameAsOne(tmp: string, out: string): void {
  const read = (run: string, file: string) => readFileSync(join(tmp, run, file), 'utf8');
  for (const f of FILES) expect(read(out, f), `${out}/${f}`).toBe(read('one', f));
}

/**
 * Whether two `workers`' logs (`worker: chunk N started` … `done` on stderr, in the order the lines reached this
 * process) showed both with a chunk in progress at once: both were scoring, e.g. a shared server had their requests
 * to interleave. Call it right after starting them; the returned function reads the verdict so far.
 */
export function chunksAtOnce(workers: { child: ChildProcess }[]): () => boolean {
  const busy = new Set<number>();
  let both = false;
  workers.forEach((w, i) => {
    createInterface({ input: w.child.stderr! }).on('line', (line) => {
      const state = /^worker: chunk \d+ (started|done)/.exec(line)?.[1];
      if (state === 'started') busy.add(i);
      if (state === 'done') busy.delete(i);
      both ||= busy.size === 2;
    });
  });
  return () => both;
}
