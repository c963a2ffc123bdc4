import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../core/default-config.ts';
import { freezePlan } from '../../../core/run-plan.ts';
import type { PipelineParts } from '../../../core/stages/stages.ts';
import { planSource, runAnnotate, runFilesStore } from '../annotate-run.ts';
import { digestInputs } from '../../input-digest.ts';
import { loadModel } from '../../load-model.ts';
import { createNodeParts } from '../../parts.ts';
import { type Executor, runLoop } from '../run-loop.ts';
import type { Chunk } from '../chunks.ts';
import { annotateChunk } from './in-process.ts';

/**
 * A new executor needs nothing but this file: it takes whole batches of chunks and hands their results back in
 * reverse order (as a remote pool might), and the one loop's committer still writes the same bytes as a plain run —
 * resume and --max-docs included. Real data: the committed tiny-random model, six documents and a bad record.
 */
const root = resolve(import.meta.dirname, '../../../..');
const tmp = mkdtempSync(join(tmpdir(), 'fake-executor-'));
const corpus = join(tmp, 'corpus.jsonl');
const sample = readFileSync(join(root, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
writeFileSync(corpus, [...sample.slice(0, 3), '{"id": "broken", "text": ', ...sample.slice(3, 6), ''].join('\n'));
const config = defaultConfig({ tools: ['Calculator', 'Calendar'], seed: 5, controlMargin: null });
for (const t of Object.values(config.thresholds)) Object.assign(t, { k: 2, m: 1, tauF: 0.05 });
const meta = { model: 'models/tiny-random' };
let parts: PipelineParts;

/** Runs chunks `batch` at a time and returns each batch's results last first. */
function reversingExecutor(batch: number): Executor & { batches: number } {
  const executor = {
    batches: 0,
    async run(chunks: AsyncIterable<Chunk>, done: (r: Awaited<ReturnType<typeof annotateChunk>>) => void) {
      let held: Chunk[] = [];
      const flush = async () => {
        const results = [];
        for (const chunk of held) results.push(await annotateChunk(parts, config, chunk));
        for (const r of results.reverse()) done(r);
        held = [];
        executor.batches++;
      };
      for await (const chunk of chunks) if (held.push(chunk) === batch) await flush();
      if (held.length > 0) await flush();
    },
  };
  return executor;
}

const FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json', 'checkpoint.json'];
const read = (name: string, file: string) => readFileSync(join(tmp, name, file), 'utf8');
const runFake = (name: string, options: { maxDocs?: number; resume?: boolean } = {}) => {
  const plan = freezePlan(meta, { inputs: [corpus], inputsDigest: digestInputs([corpus]), maxDocs: options.maxDocs, config });
  const executor = reversingExecutor(3);
  return runLoop({ ...planSource(plan), chunkItems: 2, executor, store: runFilesStore(plan, join(tmp, name), options.resume) }).then((r) => ({ ...r, batches: executor.batches }));
};

beforeAll(async () => {
  parts = (await createNodeParts(await loadModel(join(root, 'models/tiny-random')), config)).parts;
  await runAnnotate(parts, { inputs: [corpus], outDir: join(tmp, 'plain'), meta, config });
}, 120_000);

describe('an executor added in a test file', () => {
  it('writes the same files as the in-process run, though it returns results out of order', async () => {
    const done = await runFake('fake');
    expect(done).toMatchObject({ chunks: 4, selected: 4, skipped: 0, batches: 2 });
    expect(done.stats).toMatchObject({ docsRead: 6, badRecords: 1 });
    expect(read('plain', 'calls.jsonl').length).toBeGreaterThan(0);
    for (const f of FILES) expect(read('fake', f), f).toBe(read('plain', f));
  }, 120_000);

  it('stops at --max-docs and resumes to the same files', async () => {
    const first = await runFake('resumed', { maxDocs: 2 });
    expect(first.stats.docsRead).toBe(2);
    await runFake('resumed', { resume: true });
    for (const f of FILES.filter((f) => f !== 'config.json')) expect(read('resumed', f), f).toBe(read('plain', f));
  }, 120_000);
});
