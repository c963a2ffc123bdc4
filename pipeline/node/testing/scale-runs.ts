/**
 * What the scale-out tests share (scale.test.ts, queue.test.ts, orphans.test.ts): eleven small documents and a bad
 * record in three-item chunks (four chunks), the annotate and worker command lines, a reference `--workers 1` run to
 * compare bytes with, the queue tests' own redis-server, and every child a test starts killed after it.
 */
import { type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT, TINY_MODEL, runCli, spawnCli } from './cli-child.ts';
import { TEST_CAP_MS } from './progress.ts';
import { skipUnlessInstalled } from './system-requirement.ts';
import { RedisServer, hasRedisServer } from '../run/executors/redis-server.ts';

export const FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json'];

export const annotate = (out: string, ...extra: string[]) => [
  'annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator,Calendar', '--k', '2', '--m', '2',
  '--tau-f', '0.05', '--control-margin', '-1', '--seed', '7', '--quiet', '--chunk', '3', ...extra,
];

// One sandboxed process per worker (2 cores); a 2 s lock, so a killed worker's chunk is redone within seconds.
export const workerArgs = (redis: RedisServer, ...extra: string[]) => ['worker', '--queue', redis.url, '--model', TINY_MODEL, '--processes', '1', '--lock-ms', '2000', ...extra];

/** The corpus in `tmp`, and the reference run `one` (--workers 1) on it. */
export async function setUpReference(tmp: string): Promise<void> {
  const sample = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(tmp, 'corpus.jsonl'), [...sample.slice(0, 6), '{"id": "bad", "text": 3}', ...sample.slice(6, 11), ''].join('\n'));
  const reference = await runCli(annotate('one', '--workers', '1'), tmp);
  expect(reference.stderr).toBe('');
}

/**
 * A test file's queue runs: skipped with one line where there is no redis-server (testing/system-requirement.ts);
 * before its tests, the reference run and a redis-server (started meanwhile); after them `cleanUp`, the server
 * stopped and `tmp` removed. `redis()` is the server, once started.
 */
export function queueRuns(group: string, tmp: string, cleanUp: () => void = () => {}): { noRedis: boolean; redis: () => RedisServer } {
  const noRedis = skipUnlessInstalled(group, hasRedisServer() ? null : 'no redis-server on PATH');
  let server: RedisServer | undefined;
  beforeAll(async () => {
    if (noRedis) return;
    [, server] = await Promise.all([setUpReference(tmp), RedisServer.start(join(tmp, 'redis'))]);
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
