import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliResult, ROOT, runCli } from '../../testing/cli-child.ts';
import { TEST_CAP_MS, waitUntil } from '../../testing/progress.ts';
import { freePort } from './redis-server.ts';
import { annotate, cliStarter, expectSameAsOne as sameAsOne, queueRuns, workerArgs as worker } from '../../testing/scale-runs.ts';

/**
 * Many machines through Redis + BullMQ, on a real redis-server started by the test: `annotate --queue` and
 * `toolformer worker`s write the same bytes as `annotate --workers 1`, through a worker killed with SIGKILL
 * mid-chunk and through a Redis restarted (emptied) mid-run; a worker with another model is refused in one line;
 * an unreachable --queue is one line. Eleven small documents and a bad record in three-item chunks (four jobs).
 */
const tmp = mkdtempSync(join(tmpdir(), 'queue-'));
const read = (out: string, file: string) => readFileSync(join(tmp, out, file), 'utf8');
const expectSameAsOne = (out: string) => sameAsOne(tmp, out);
/** Every process a test starts, stopped after it (a failed test must not leave a coordinator on the queue). */
const { start, killStarted } = cliStarter(tmp);
afterEach(killStarted);
/** Start `worker` with its stderr collected in `log()`. */
const startWorker = start;

const GROUP = 'annotate --queue with toolformer workers (Redis + BullMQ)';
const { noRedis, redis } = queueRuns(GROUP, tmp);

describe.skipIf(noRedis)(GROUP, () => {
  it('a worker killed with SIGKILL mid-chunk: another redoes it; the files equal --workers 1, the bad record once', async () => {
    const coordinator = start(annotate('killed', '--queue', redis().url));
    // A worker whose model differs from the run's is refused, in one line, before it takes any chunk.
    const other = await runCli([...worker(redis()), '--model', join(ROOT, 'models/tiny-llama')], tmp);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^(worker: waiting for a run on \S+\n)?toolformer: worker refused: its modelDigest differs from the run's \(run [0-9a-f]{12}, this worker [0-9a-f]{12}\): start it with the run's --model, --dtype and --llama-gelu[^\n]*\n$/);

    const victim = startWorker(worker(redis()), true);
    await waitUntil(() => /chunk (\d+) started/.test(victim.log()), victim.log, { what: 'the first worker to take a chunk' });
    const chunk = Number(/chunk (\d+) started/.exec(victim.log())![1]);
    // Mid-chunk: started, its file not saved yet (it holds at least two documents' work); killed at once, no clock.
    process.kill(-victim.child.pid!, 'SIGKILL');
    const killed: CliResult = await victim.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stderr).not.toContain(`chunk ${chunk} done`);

    const rescuer = startWorker(worker(redis()));
    const [run, rescued] = await Promise.all([coordinator.done, rescuer.done]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(rescued.code).toBe(0);
    expect(rescued.stderr).toContain(`chunk ${chunk} done`);
    expectSameAsOne('killed');
    expect(read('killed', 'errors.jsonl').split('\n').filter((l) => l.includes('"line":7'))).toHaveLength(1);
    expect(readdirSync(join(tmp, 'killed/chunks'))).toHaveLength(4);
  }, TEST_CAP_MS);

  it('Redis restarted (emptied) mid-run: the coordinator re-adds what was lost; the files equal --workers 1', async () => {
    const coordinator = start(annotate('restart', '--queue', redis().url));
    const w = startWorker(worker(redis()));
    await waitUntil(() => existsSync(join(tmp, 'restart/chunks')) && readdirSync(join(tmp, 'restart/chunks')).length >= 1, w.log, { what: 'the first saved chunk' });
    await redis().restart();
    const [run, done] = await Promise.all([coordinator.done, w.done]);
    expect(run.code).toBe(0);
    expect(done.code).toBe(0);
    expectSameAsOne('restart');
  }, TEST_CAP_MS);

  it('an unreachable --queue is one line, for annotate and for worker, and writes nothing', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`;
    const one = /^toolformer: cannot reach Redis at 127\.0\.0\.1:\d+ \(ECONNREFUSED\): start redis-server there, or fix --queue\n$/;
    const a = await runCli(annotate('unreachable', '--queue', url), tmp);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(one);
    expect(existsSync(join(tmp, 'unreachable'))).toBe(false);
    const w = await runCli(['worker', '--queue', url], tmp);
    expect(w.code).toBe(1);
    expect(w.stderr).toMatch(one);
    const bad = await runCli(['worker', '--queue', 'http://localhost'], tmp);
    expect(bad.stderr).toBe('toolformer: --queue must be redis://host:port[/db] (got "http://localhost"): e.g. --queue redis://127.0.0.1:6379/0\n');
  }, TEST_CAP_MS);
});
