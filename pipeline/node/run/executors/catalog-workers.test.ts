import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runDirs } from '../../testing/run-dirs.ts';
import { ROOT, TINY_MODEL, runCli, spawnCli } from '../../testing/cli-child.ts';
import { TEST_CAP_MS } from '../../testing/progress.ts';
import { skipUnlessInstalled } from '../../testing/system-requirement.ts';
import { RedisServer, hasRedisServer } from './redis-server.ts';

/**
 * A catalog and tool retrieval across processes (issue 30 item 3): each process of a run — `--workers` children, each
 * `--shard`, a `--queue` run's `toolformer worker` — rebuilds the catalog's tools and the retriever from the frozen
 * plan's config (node/tools/parts.ts createRunParts), so `--workers 2`, `--shard i/2` + merge and `--queue` with a worker
 * write the same bytes as one process. The default
 * retriever (fusion: BM25 + the dense one over the LM's hidden states, its projection trained in each process from the
 * same seed). Four documents in two-item chunks, Calculator beside the catalog's 215 tools, 3 retrieved per document,
 * τ_s 0 so that the tiny random model samples calls under them (few parse: the counts in stats.json carry the check).
 */
const { tmp, read, expectSameAs: expectSameAsOne } = runDirs('catalog-scale-');
const args = (out: string, ...extra: string[]) => [
  'annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', out, '--tools', 'Calculator', '--catalog', 'mathjs', '--tool-retrieval', '3',
  '--k', '2', '--m', '1', '--tau-s', '0', '--tau-f', '-5', '--control-margin', '-1', '--seed', '7', '--quiet', '--chunk', '2', ...extra,
];

beforeAll(async () => {
  const sample = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
  writeFileSync(join(tmp, 'corpus.jsonl'), `${sample.slice(0, 4).join('\n')}\n`);
  const reference = await runCli(args('one', '--workers', '1'), tmp);
  expect(reference.stderr).toBe('');
  expect(reference.code).toBe(0);
}, TEST_CAP_MS);

describe('--catalog with --tool-retrieval in several processes', () => {
  it('the reference run retrieved 3 catalog tools per document and sampled calls under them', () => {
    const config = JSON.parse(read('one', 'config.json')).config;
    expect(config).toMatchObject({ catalog: 'mathjs', toolRetrieval: { k: 3, retriever: 'fusion' } });
    type Tool = { docs: number; prefilterDrops: Record<string, number>; positions: { total: number }; lmSampling: { samples: number } };
    const tools = Object.entries(JSON.parse(read('one', 'stats.json')).tools as Record<string, Tool>).filter(([name]) => name !== 'Calculator');
    expect(tools.length).toBe(215);
    // Each document went through exactly its 3 retrieved catalog tools; every other tool skipped it as not_retrieved.
    expect(tools.reduce((n, [, t]) => n + t.docs, 0)).toBe(4 * 3);
    for (const [name, t] of tools) expect(t.docs + (t.prefilterDrops.not_retrieved ?? 0), name).toBe(4);
    const retrieved = tools.filter(([, t]) => t.docs > 0);
    expect(retrieved.length).toBeGreaterThan(3); // not the same three for every document
    expect(retrieved.reduce((n, [, t]) => n + t.positions.total, 0)).toBeGreaterThan(0);
    expect(retrieved.reduce((n, [, t]) => n + t.lmSampling.samples, 0)).toBeGreaterThan(0);
  });

  it('--workers 2 writes the same files as --workers 1', async () => {
    const run = await runCli(args('two', '--workers', '2'), tmp);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expectSameAsOne('two');
  }, TEST_CAP_MS);

  it('--shard 0/2 and 1/2, then toolformer merge, write the same files as --workers 1', async () => {
    for (const i of [0, 1]) expect((await runCli(args('shards', '--shard', `${i}/2`), tmp)).code).toBe(0);
    const merged = await runCli(['merge', 'shards'], tmp);
    expect(merged.stderr).toBe('');
    expectSameAsOne('shards');
  }, TEST_CAP_MS);

  // The worker is told nothing of the catalog or the retrieval: both come from the run's plan on the queue.
  const noRedis = skipUnlessInstalled('--catalog with --queue (Redis + BullMQ)', hasRedisServer() ? null : 'no redis-server on PATH');
  it.skipIf(noRedis)('--queue with one toolformer worker writes the same files as --workers 1', async () => {
    const redis = await RedisServer.start(join(tmp, 'redis'));
    try {
      const coordinator = spawnCli(args('queued', '--queue', redis.url), tmp);
      const worker = await runCli(['worker', '--queue', redis.url, '--model', TINY_MODEL, '--processes', '1'], tmp);
      const run = await coordinator.done;
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(worker.code, worker.stderr).toBe(0);
      expectSameAsOne('queued');
    } finally {
      await redis.stop();
    }
  }, TEST_CAP_MS);
});
