import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseCall } from '../../core/call-syntax.ts';
import { defaultConfig } from '../../core/default-config.ts';
import type { CausalLM } from '../../core/lm/lm.ts';
import { escapeBrackets } from '../../core/stages/inline.ts';
import type { PipelineParts } from '../../core/stages/stages.ts';
import { runAnnotate } from './annotate-run.ts';
import { loadModel } from '../model/load-model.ts';
import { createNodeParts } from '../tools/parts.ts';

/**
 * The whole pipeline on real data: the committed tiny-random model, three documents of the bundled sample
 * corpus and one bad record. Random weights keep few calls on merit, so τ_f is set low enough that some
 * are kept and inlining is exercised.
 */
const root = resolve(import.meta.dirname, '../../..');
const tmp = mkdtempSync(join(tmpdir(), 'annotate-'));
const corpus = join(tmp, 'corpus.jsonl');
const sample = readFileSync(join(root, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
writeFileSync(corpus, [sample[0], '{"id": "broken", "text": ', sample[1], sample[2], ''].join('\n'));
const docs = new Map(sample.slice(0, 3).map((l) => [JSON.parse(l).id as string, JSON.parse(l).text as string]));

// The paper's filter alone (no counterfactual control, tested in core/stages/stages.test.ts): the tiny random model's
// results barely beat a distractor, and these tests are about judging and inlining.
const config = defaultConfig({ tools: ['Calculator', 'QA', 'Calendar'], seed: 7, controlMargin: null });
for (const t of Object.values(config.thresholds)) Object.assign(t, { k: 3, m: 2, tauF: 0.05 });

let lm: CausalLM;
let parts: PipelineParts;
const run = (name: string, extra: { maxDocs?: number; resume?: boolean; batchSize?: number; tauFFloor?: number; tauF?: number } = {}) =>
  runAnnotate(parts, {
    inputs: [corpus],
    outDir: join(tmp, name),
    meta: { model: 'models/tiny-random' },
    config: {
      ...config,
      batchSize: extra.batchSize ?? config.batchSize,
      ...(extra.tauFFloor !== undefined && { tauFFloor: extra.tauFFloor }),
      ...(extra.tauF !== undefined && { thresholds: Object.fromEntries(Object.entries(config.thresholds).map(([tool, t]) => [tool, { ...t, tauF: extra.tauF! }])) }),
    },
    maxDocs: extra.maxDocs,
    resume: extra.resume,
  });
const read = (name: string, file: string) => readFileSync(join(tmp, name, file), 'utf8');
/** Index of the first "]" at or after `from` that is not escaped by a backslash. */
const closingBracket = (s: string, from: number) => {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === ']') return i;
  }
  return -1;
};
const lines = (name: string, file: string) => read(name, file).trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

beforeAll(async () => {
  lm = await loadModel(join(root, 'models/tiny-random'));
  parts = (await createNodeParts(lm, config)).parts;
  await run('a');
}, 120_000);

describe('annotate on the sample corpus', () => {
  it('reports the bad record and goes on', () => {
    const errors = lines('a', 'errors.jsonl');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 2, code: 'malformed-json' });
    expect(JSON.parse(read('a', 'stats.json'))).toMatchObject({ docsRead: 3, badRecords: 1 });
  });

  it('records every candidate with a reason, and judges exactly min(L_a, L_b) − L_c ≥ τ_f', () => {
    const calls = lines('a', 'calls.jsonl');
    expect(calls.length).toBeGreaterThan(10);
    const scored = calls.filter((c) => c.losses);
    expect(scored.length).toBeGreaterThan(0);
    for (const c of calls) expect(typeof c.reason).toBe('string');
    for (const c of scored) {
      if (c.losses.callOnly === undefined) {
        // Two-pass scoring: L_b is skipped where L_a − L_c is below τ_min = min(τ_f 0.05, the grid's floor 0), and the
        // record keeps the bound instead: usefulness ≤ L_a − L_c < 0, so no threshold at or above the floor keeps it.
        expect(c.usefulness).toBeUndefined();
        expect(c.usefulnessAtMost).toBeCloseTo(c.losses.noCall - c.losses.withResult, 3);
        expect(c.usefulnessAtMost).toBeLessThan(0);
        expect(c.kept).toBe(false);
        expect(c.reason).toBe('below_tau_f');
        continue;
      }
      const u = Math.min(c.losses.noCall, c.losses.callOnly) - c.losses.withResult;
      expect(c.losses.noCall - c.losses.withResult).toBeGreaterThanOrEqual(0);
      expect(c.usefulness).toBeCloseTo(u, 3);
      expect(c.kept).toBe(c.usefulness >= 0.05);
      expect(c.reason).toBe(c.kept ? 'kept' : 'below_tau_f');
    }
    expect(scored.some((c) => c.losses.callOnly !== undefined)).toBe(true);
    // Rejections before scoring carry their own reasons.
    expect(calls.some((c) => !c.losses && c.reason !== 'kept')).toBe(true);
  });

  it('counts in stats.json what calls.jsonl holds, per tool and reason', () => {
    const stats = JSON.parse(read('a', 'stats.json'));
    const calls = lines('a', 'calls.jsonl');
    for (const [tool, s] of Object.entries<any>(stats.tools)) {
      const mine = calls.filter((c) => c.tool === tool);
      expect(s.candidates).toBe(mine.length);
      expect(s.kept).toBe(mine.filter((c) => c.kept).length);
      expect(s.reachTauF.find((x: any) => x.tauF === 0).calls).toBe(mine.filter((c) => c.usefulness >= 0).length);
      if (s.docs > 0) expect(s.positions.total).toBeGreaterThan(0);
    }
  });

  it('inlines each kept call at its position as [Tool(args) -> result], leaving the text otherwise unchanged (but for literal brackets, written as parentheses)', () => {
    const train = lines('a', 'train.jsonl');
    expect(train.length).toBeGreaterThan(0);
    for (const record of train) {
      let text: string = record.text;
      for (const c of [...record.calls].reverse()) {
        expect(text.slice(c.inlinedAt, c.inlinedAt + 2)).toBe(' [');
        const close = closingBracket(text, c.inlinedAt);
        const parsed = parseCall(text.slice(c.inlinedAt + 1, close + 1));
        expect(parsed).toMatchObject({ ok: true, call: { tool: c.tool, input: c.input } });
        text = text.slice(0, c.inlinedAt) + text.slice(close + 1);
      }
      expect(text).toBe(escapeBrackets(docs.get(record.id)!));
    }
  });

  it('writes identical files for the same inputs and seed, whatever the batch size', async () => {
    await run('b', { batchSize: 3 });
    for (const f of ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'config.json', 'stats.json']) {
      if (f === 'config.json') continue; // records the batch size
      expect(read('b', f)).toBe(read('a', f));
    }
  });

  it('refuses to resume when the input files changed since the run started', async () => {
    const copy = join(tmp, 'copy.jsonl');
    writeFileSync(copy, readFileSync(corpus));
    const runCopy = (resume: boolean) =>
      runAnnotate(parts, { inputs: [copy], outDir: join(tmp, 'e'), meta: {}, config, maxDocs: resume ? undefined : 1, resume });
    await runCopy(false);
    writeFileSync(copy, readFileSync(corpus, 'utf8').replace(sample[1], sample[2]));
    await expect(runCopy(true)).rejects.toThrow(/the input files changed since the run started/);
  });

  it('resumes a stopped run from its checkpoint without losing or duplicating lines', async () => {
    await run('c', { maxDocs: 1 });
    await run('c', { resume: true });
    for (const f of ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json']) expect(read('c', f)).toBe(read('a', f));
  });

  it('resumes a checkpoint written before stats had reachTauF.undecided (0 then), and names a field it cannot derive', async () => {
    await run('old', { maxDocs: 1 });
    const path = join(tmp, 'old', 'checkpoint.json');
    const checkpoint = JSON.parse(readFileSync(path, 'utf8'));
    for (const tool of Object.values<any>(checkpoint.stats.tools)) for (const entry of tool.reachTauF) delete entry.undecided;
    writeFileSync(path, JSON.stringify(checkpoint));
    await run('old', { resume: true });
    for (const f of ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json']) expect(read('old', f)).toBe(read('a', f));

    await run('older', { maxDocs: 1 });
    const olderPath = join(tmp, 'older', 'checkpoint.json');
    const older = JSON.parse(readFileSync(olderPath, 'utf8'));
    delete older.stats.tools.QA.inlined;
    writeFileSync(olderPath, JSON.stringify(older));
    await expect(run('older', { resume: true })).rejects.toThrow(/from an older toolformer-ts \(stats: stats\.tools\.QA\.inlined is missing\)/);
  });

  it('with --tau-f-floor at the tools\' τ_f: the same kept calls and train.jsonl, fewer L_b, and a grid that brackets the exact counts', async () => {
    // τ_f 0.5 so that the grid's 0 and 0.25 lie below τ_min: some skipped calls' bounds reach them.
    await run('exact', { tauFFloor: -5, tauF: 0.5 });
    await run('fast', { tauFFloor: 9, tauF: 0.5 }); // above every tool's τ_f: τ_min = τ_f
    expect(read('fast', 'train.jsonl')).toBe(read('exact', 'train.jsonl'));
    const [exactCalls, fastCalls] = [lines('exact', 'calls.jsonl'), lines('fast', 'calls.jsonl')];
    expect(fastCalls.map((c) => [c.tool, c.at, c.input, c.kept])).toEqual(exactCalls.map((c) => [c.tool, c.at, c.input, c.kept]));
    const withLb = (calls: any[]) => calls.filter((c) => c.losses?.callOnly !== undefined).length;
    expect(withLb(fastCalls)).toBeLessThan(withLb(exactCalls));
    const [exact, fast] = [JSON.parse(read('exact', 'stats.json')), JSON.parse(read('fast', 'stats.json'))];
    let undecided = 0;
    for (const [tool, s] of Object.entries<any>(fast.tools)) {
      s.reachTauF.forEach((r: any, i: number) => {
        const truth = exact.tools[tool].reachTauF[i];
        expect(truth.undecided, `${tool} τ_f ${r.tauF}`).toBe(0);
        expect(r.calls, `${tool} τ_f ${r.tauF}`).toBeLessThanOrEqual(truth.calls);
        expect(r.calls + r.undecided, `${tool} τ_f ${r.tauF}`).toBeGreaterThanOrEqual(truth.calls);
        if (r.tauF >= 0.5) expect(r, `${tool} τ_f ${r.tauF}`).toEqual(truth); // at and above τ_min: exact
        undecided += r.undecided;
      });
    }
    expect(undecided).toBeGreaterThan(0);
  });
});
