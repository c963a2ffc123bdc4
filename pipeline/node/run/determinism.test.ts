import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnnotateFlags, configFromFlags } from '../commands/annotate-command.ts';
import { runAnnotate } from './annotate-run.ts';
import { loadModel } from '../model/load-model.ts';
import { createNodeParts } from '../tools/parts.ts';
import { OUTPUT_FILES } from './run-files.ts';
import { ROOT } from '../testing/cli-child.ts';

/**
 * Same seed, same files, whatever --concurrency (tool calls in flight) and --batch-size (sequences per forward
 * pass): runs at (1, 1), (8, 16) and (1, 16) on five documents with many calls each, Translate's among them.
 */
const tmp = mkdtempSync(join(tmpdir(), 'determinism-'));
const sample = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
// Spanish and Catalan spans in English text: Translate calls run Apertium processes, which finish in any order.
const foreign = {
  id: 'es-ca',
  date: '1999-05-01',
  text:
    'The anthem of Mexico begins with the words "Mexicanos, al grito de guerra, el acero aprestad y el bridón", and the ' +
    'official motto of the republic of Colombia is "Libertad y orden". The people of Catalonia say "Som i serem gent ' +
    'catalana" at their festivals. In 1821 the country had 6 million people and 3 ports, a total of 9 cities.',
};
writeFileSync(join(tmp, 'corpus.jsonl'), [...sample.slice(1, 5), JSON.stringify(foreign), '{"id": 1}', ''].join('\n'));
const flags = (concurrency: number, batchSize: number): AnnotateFlags => ({
  // Control margin −1: the counterfactual control runs and its margins are written (they must not depend on batching
  // either), but the random model's margins cluster around 0, where batching's float noise could flip a verdict.
  model: 'models/tiny-random', tools: 'Calculator,QA,Calendar,Translate', k: 3, m: 2, tauF: 0.05, controlMargin: -1, seed: 5,
  concurrency, batchSize, lmProposals: true, out: '', quiet: true,
});
const settings = [[1, 1], [8, 16], [1, 16]] as const;
const read = (run: string, file: string) => readFileSync(join(tmp, run, file), 'utf8');

let translation = '';
beforeAll(async () => {
  const lm = await loadModel(join(ROOT, 'models/tiny-random'));
  for (const [concurrency, batchSize] of settings) {
    // A tool call that times out is an error in one run and a result in another: the timeout is wall-clock, so on a
    // loaded machine (CI runs test files side by side on 2 cores) the former 2 s default made runs differ. Not what this tests.
    const config = { ...configFromFlags(flags(concurrency, batchSize)), toolTimeoutMs: 120_000 };
    const { parts, translation: engine } = await createNodeParts(lm, config);
    translation = engine;
    await runAnnotate(parts, { inputs: [join(tmp, 'corpus.jsonl')], outDir: join(tmp, `c${concurrency}-b${batchSize}`), meta: {}, config });
  }
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('determinism across tool concurrency and batch size', () => {
  it('the runs did real work: calls executed and scored, some kept', () => {
    const calls = read('c1-b1', 'calls.jsonl').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls.filter((c) => c.losses).length).toBeGreaterThan(20);
    expect(calls.filter((c) => c.result !== undefined).length).toBeGreaterThan(20);
    // Without Apertium (apt-get install apertium …) Translate calls are errors: the same in every run, but not async.
    if (translation.startsWith('apertium')) expect(calls.filter((c) => c.tool === 'Translate' && c.result !== undefined).length).toBeGreaterThan(2);
    else console.warn(`determinism: Translate ran without Apertium (${translation})`);
    expect(read('c1-b1', 'train.jsonl').length).toBeGreaterThan(0);
  });

  it.each(settings.slice(1))('--concurrency %i --batch-size %i writes the same files as 1 and 1', (concurrency, batchSize) => {
    const run = `c${concurrency}-b${batchSize}`;
    for (const f of [...OUTPUT_FILES, 'stats.json']) expect(read(run, f), f).toBe(read('c1-b1', f));
    // config.json differs only in the two settings.
    const config = (r: string) => {
      const c = JSON.parse(read(r, 'config.json'));
      delete c.config.toolConcurrency;
      delete c.config.batchSize;
      return c;
    };
    expect(config(run)).toEqual(config('c1-b1'));
  });
});
