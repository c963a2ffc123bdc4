/**
 * isolated-calls.ts with real worker threads (issue 46 item 2): a call that never returns is stopped at its deadline,
 * one that exhausts its heap ends its thread, a caller's abort stops its call, and meanwhile another thread answers;
 * close() ends a running call at once. The evaluator is testing/hostile-evaluator.ts; the mathjs catalog's runs
 * through the same pool.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { catalogNamed } from '../../core/tools/catalogs/index.ts';
import { IsolatedCalls, isolateCatalog } from './isolated-calls.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';

const EVALUATOR = { module: new URL('../testing/hostile-evaluator.ts', import.meta.url).href, exportName: 'evaluate', warm: ['echo', 'warm'] };

describe('IsolatedCalls', () => {
  const pool = new IsolatedCalls(EVALUATOR, { deadlineMs: 1500, heapMb: 64, workers: 2 });
  afterAll(() => pool.close());

  it('answers a call from a worker thread', async () => {
    expect(await pool.call(['echo', 'hello'])).toEqual({ ok: true, value: 'hello' });
  }, TEST_CAP_MS);

  it('a call that never returns is stopped at its deadline; another thread answers meanwhile; the next call gets a fresh thread', async () => {
    const spinning = pool.call(['spin', '']);
    // The other thread (started on demand, warmed first) answers while the first spins.
    expect(await pool.call(['echo', 'meanwhile'])).toEqual({ ok: true, value: 'meanwhile' });
    expect(await spinning).toEqual({ ok: false, error: 'ran past its 1500 ms deadline: stopped' });
    expect(await pool.call(['echo', 'after'])).toEqual({ ok: true, value: 'after' });
  }, TEST_CAP_MS);

  it('a call that exhausts its heap ends its thread, not the process', async () => {
    const hog = new IsolatedCalls(EVALUATOR, { deadlineMs: 60_000, heapMb: 64, workers: 1 });
    try {
      expect(await hog.call(['hog', ''])).toEqual({ ok: false, error: 'ran out of its 64 MB memory budget: stopped' });
      expect(await hog.call(['echo', 'still here'])).toEqual({ ok: true, value: 'still here' });
    } finally {
      await hog.close();
    }
  }, TEST_CAP_MS);

  it("a caller's abort stops its call (waiting or running); close() ends a running call at once", async () => {
    const controller = new AbortController();
    const one = new IsolatedCalls(EVALUATOR, { deadlineMs: 60_000, workers: 1 });
    await one.prestart();
    const running = one.call(['spin', ''], controller.signal);
    const waiting = one.call(['echo', 'never'], controller.signal);
    // Aborted once the spin is posted to its thread (the warmed thread is taken and the message sent in microtasks).
    await new Promise(setImmediate);
    controller.abort();
    expect(await running).toEqual({ ok: false, error: 'cancelled: its caller went away or timed out; stopped' });
    expect(await waiting).toEqual({ ok: false, error: 'cancelled while waiting for a thread' });
    await one.prestart();
    const spun = one.call(['spin', '']);
    await new Promise(setImmediate);
    const closing = one.close();
    expect(await spun).toEqual({ ok: false, error: 'the isolated evaluator was closed: stopped' });
    await closing;
    expect(one.threads).toBe(0);
  }, TEST_CAP_MS);
});

describe('isolateCatalog: the mathjs catalog in worker threads', () => {
  it('a catalog tool runs its call in a thread and answers as in-process', async () => {
    const catalog = catalogNamed('mathjs');
    const isolation = isolateCatalog(catalog, { workers: 1 });
    try {
      const specs = await catalog.load(isolation);
      const gcd = specs.find((s) => s.name === 'gcd')!.create({} as never);
      await gcd.load?.();
      expect(isolation.pool.threads).toBe(1);
      expect(await gcd.run('8, 12', { doc: { id: 'd' } })).toEqual({ ok: true, value: '4' });
      expect(await specs.find((s) => s.name === 'zeros')!.create({} as never).run('10^5, 10^5', { doc: { id: 'd' } })).toEqual({ ok: false, error: 'zeros takes integers of at most 200 here' });
    } finally {
      await isolation.close();
    }
  }, TEST_CAP_MS);
});
