import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDirs } from '../../testing/run-dirs.ts';
import { runCli, spawnCli } from '../../testing/cli-child.ts';
import { DescendantWatch, type Proc, aliveAfter, exitOf, killAll } from '../../testing/process-tree.ts';
import { TEST_CAP_MS } from '../../testing/progress.ts';
import { annotate as args, setUpReference } from '../../testing/scale-runs.ts';

/**
 * One machine, no server: `annotate --workers 2` and `annotate --shard i/N` + `toolformer merge` write the same bytes
 * as `--workers 1` (the single-process run), and a --workers run killed with SIGKILL leaves no worker process alive
 * and resumes to the same bytes. Eleven small documents and a bad record, three-item chunks (testing/scale-runs.ts): four chunks,
 * so both workers and all shards get some.
 */
const { tmp, read, expectSameAs: expectSameAsOne } = runDirs('scale-');
/** Descendants a test watched, SIGKILLed after it if still alive. */
const watched: DescendantWatch[] = [];
afterEach(() => {
  for (const watch of watched.splice(0)) killAll(watch.stop());
});

beforeAll(() => setUpReference(tmp), TEST_CAP_MS);

describe('scale out on one machine', () => {
  it('the reference run did real work: kept calls and the bad record', () => {
    expect(read('one', 'train.jsonl').split('\n').length).toBeGreaterThan(3);
    expect(read('one', 'errors.jsonl')).toContain('"line":7');
    expect(JSON.parse(read('one', 'stats.json'))).toMatchObject({ docsRead: 11, badRecords: 1 });
  });

  it('--workers 2 writes the same files as --workers 1', async () => {
    const run = await runCli(args('two', '--workers', '2'), tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectSameAsOne('two');
    expect(read('two', 'checkpoint.json')).toBe(read('one', 'checkpoint.json'));
  }, TEST_CAP_MS);

  it('--shard 0/2 and 1/2, then toolformer merge, write the same files as --workers 1', async () => {
    await Promise.all([0, 1].map((i) => runCli(args('shards', '--shard', `${i}/2`), tmp)));
    // A shard run again (a requeued array task) skips its chunks: nothing changes.
    const again = await runCli(args('shards', '--shard', '1/2'), tmp);
    expect(again.stdout).toContain('2 of 4 chunks (2 already done)');
    const merged = await runCli(['merge', 'shards'], tmp);
    expect(merged.stderr).toBe('');
    expect(merged.stdout).toContain('merged shards: 11 documents, 1 bad records');
    expectSameAsOne('shards');
  }, TEST_CAP_MS);

  it('merge with a shard missing is a one-line error naming the chunks', async () => {
    await runCli(args('half', '--shard', '0/2'), tmp);
    const merged = await runCli(['merge', 'half'], tmp);
    expect(merged.code).toBe(1);
    expect(merged.stderr).toMatch(/^toolformer: cannot merge half: chunks 1, 3 of 4 are missing: run the shards or workers that hold them\n$/);
  }, TEST_CAP_MS);

  it('--workers 2 killed with SIGKILL after its first chunk: no worker process alive 15 s later; --resume: the same files', async () => {
    const killedArgs = [...args('killed', '--workers', '2'), '--chunk', '1']; // twelve chunks: see the SIGTERM case
    const { child, done } = spawnCli(killedArgs, tmp);
    const watch = new DescendantWatch(child.pid!);
    watched.push(watch);
    const poll = setInterval(() => existsSync(join(tmp, 'killed/checkpoint.json')) && child.kill('SIGKILL'), 5);
    const killed = await exitOf(child); // not `done`: see exitOf
    clearInterval(poll);
    expect(killed.signal).toBe('SIGKILL');
    // Its two worker processes, by pid (issue 50): each sees its parent go and exits.
    expect(watch.all().filter((p) => p.command.includes('pool-child.mjs'))).toHaveLength(2);
    expect(await aliveAfter(watch.stop(), 15_000)).toEqual([]);
    await done;
    const checkpoint = JSON.parse(read('killed', 'checkpoint.json'));
    expect(checkpoint.items).toBeLessThan(12);
    const resumed = await runCli([...killedArgs, '--resume'], tmp);
    expect(resumed.code).toBe(0);
    expectSameAsOne('killed');
  }, TEST_CAP_MS);

  it('--workers 2 SIGTERMed after its first chunk: every descendant gone within 5 s, exit 143, one line; --resume: the same files', async () => {
    // One-item chunks (12): chunks commit in order, so with four a slow first chunk could be committed last, after
    // the other worker had done the rest, and the run would end before the signal (a fresh-clone CI run saw exit 0).
    // With twelve, the first checkpoint leaves work for both workers. The files do not depend on the chunk size.
    const stoppedArgs = [...args('stopped', '--workers', '2'), '--chunk', '1'];
    const { child, done } = spawnCli(stoppedArgs, tmp);
    const watch = new DescendantWatch(child.pid!);
    watched.push(watch);
    let tree: Proc[] = [];
    const poll = setInterval(() => {
      if (!existsSync(join(tmp, 'stopped/checkpoint.json')) || tree.length > 0) return;
      child.kill('SIGTERM'); // first, then the tree: the watch has seen the workers since they started
      tree = watch.look();
    }, 5);
    const stopped = await exitOf(child).finally(() => clearInterval(poll)); // not `done`: see exitOf
    expect(tree.filter((p) => p.command.includes('pool-child.mjs'))).toHaveLength(2);
    expect(await aliveAfter(tree, 5_000)).toEqual([]);
    expect(stopped.code).toBe(143);
    expect((await done).stderr).toBe('toolformer: SIGTERM: stopping the worker processes; the files hold every chunk done before: pass --resume to continue\n');
    // Signalled after a checkpoint (issue 46): the resume continues a run, it does not start afresh.
    const committed = JSON.parse(read('stopped', 'checkpoint.json')).items;
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(12);
    const resumed = await runCli([...stoppedArgs, '--resume'], tmp);
    expect(resumed.stderr).not.toContain('no checkpoint');
    expect(resumed.code).toBe(0);
    expectSameAsOne('stopped');
  }, TEST_CAP_MS);

  it('--workers with --shard is a one-line error', async () => {
    const run = await runCli(args('both', '--workers', '2', '--shard', '0/2'), tmp);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('toolformer: --workers, --shard and --queue exclude each other: pass one\n');
  });
});
