/**
 * The parity of LM backends (issue 45), checked where it can break:
 * - the pairing of calls (parity-compare.ts) on planted runs: an identity shared by two calls is refused, and calls
 *   that differ only in their result are paired with their own (the first comparison's bug, replayed);
 * - live, models/default on ONNX Runtime and its f32 GGUF on llama.cpp, `toolformer annotate` of one sample document
 *   with a kept call: the same calls scored, the same kept, train.jsonl the same but for the losses it records, every
 *   loss within the GELU table's gap; the worked cases give the losses results/gguf-parity.json records, per backend;
 * - live, the GELU table as the cause: ONNX Runtime with ggml-cpu's table in its graph is several times closer to
 *   llama.cpp than without it;
 * - the committed results say what the README's block says (served: identical; f32: kept calls and train.jsonl's
 *   finetuning data identical; the exact-GELU build within 1e-4 with identical files; flips listed with their
 *   distance to τ_f). The exact-GELU build itself is built and checked live by gelu-exact-build.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertCommand } from '../node/commands/convert-command.ts';
import { openLM } from '../node/model/lm-backends/registry.ts';
import { DEFAULT_MODEL, PACKAGE_ROOT } from '../node/system/package-paths.ts';
import { spawnCli } from '../node/testing/cli-child.ts';
import { geluEvidence } from './gelu-table.ts';
import { RESULT, workedLosses } from './gguf-parity.ts';
import { byIdentity, compareRuns, oldKeyPairing, type CallRow } from './parity-compare.ts';

const result = JSON.parse(readFileSync(RESULT, 'utf8')) as { runs: Record<string, any>; geluTable: Record<string, any>; geluExactBuild: Record<string, any> };
const work = mkdtempSync(join(tmpdir(), 'gguf-parity-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A run folder holding `calls` (and a train.jsonl, a config.json with τ_f 1 for every tool named). */
function plantRun(name: string, calls: CallRow[]): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'calls.jsonl'), calls.map((c) => JSON.stringify(c)).join('\n') + '\n');
  writeFileSync(join(dir, 'train.jsonl'), '');
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ config: { thresholds: Object.fromEntries(calls.map((c) => [c.tool, { tauF: 1 }])) } }));
  return dir;
}
const call = (result: string, withResult: number, kept = false): CallRow => ({
  docId: 'd', at: 5, tool: 'T', input: 'capital of Mexico?', result, losses: { noCall: 3, callOnly: 3, withResult }, usefulness: 3 - withResult, kept, reason: kept ? 'kept' : 'below_tau_f',
});

describe('pairing calls by identity', () => {
  it('refuses a run where two calls share an identity (planted)', () => {
    expect(() => byIdentity([call('Mexico City', 1), call('Mexico City', 2)], 'run')).toThrow('run: two calls share the identity d @5 T(capital of Mexico?) → Mexico City');
  });

  it('pairs calls that differ only in their result with their own; keyed without the result they are crossed', () => {
    const a = plantRun('a', [call('Mexico City', 2.5), call('MEXICO CITY', 1.5, true)]);
    const b = plantRun('b', [call('Mexico City', 2.5001), call('MEXICO CITY', 1.4999, true)]);
    const c = compareRuns(a, b);
    expect(c.paired).toBe(2);
    expect(c.maxAbsDelta.withResult).toBe(0.0001);
    expect(c.flips).toEqual([]);
    expect(c.keptIdentical).toBe(true);
    const old = oldKeyPairing(a, b);
    expect(old).toMatchObject({ keysSharedByCalls: 1, callsUnderSharedKeys: 2, lcApartKeyedWithoutResult: 1, lcApartByIdentity: 0 });
  });

  it('lists a flip with the reference run’s distance to τ_f', () => {
    const a = plantRun('flip-a', [call('x', 1.75, true)]);
    const b = plantRun('flip-b', [call('x', 2.25)]);
    expect(compareRuns(a, b).flips).toEqual([{ call: 'd @5 T(capital of Mexico?) → x', tauF: 1, reference: 1.25, other: 0.75, distanceToTauF: 0.25, reasons: ['kept', 'below_tau_f'] }]);
  });
});

// The sample's Japan document: 98 scored calls, one kept (QA, 1.18 nats above τ_f).
const JAPAN = 'factbook/east-n-southeast-asia/ja/introduction/0';
/** ONNX Runtime and llama.cpp differ by ggml-cpu's float16 GELU table: 3.5e-3 nats at most over the sample's tokens. */
const GELU_GAP = 4e-3;

describe('models/default: ONNX Runtime and its f32 GGUF on llama.cpp', () => {
  it('annotate of one sample document: the same calls, the same kept, train.jsonl the same but for its losses', async () => {
    const corpus = join(work, 'japan.jsonl');
    writeFileSync(corpus, readFileSync(join(PACKAGE_ROOT, 'corpus/sample.jsonl'), 'utf8').split('\n').filter((l) => l.includes(`"${JAPAN}"`)).join('\n') + '\n');
    const gguf = await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype: 'f32', out: join(work, 'default-f32.gguf') });
    // One core (taskset): llama.cpp's threads follow the affinity; its spinning pool is slow with two on a loaded machine.
    const annotate = (name: string, model: string) => spawnCli(['annotate', corpus, '--model', model, '--out', join(work, name), '--quiet'], PACKAGE_ROOT, undefined, { wrapper: ['taskset', '-c', '0'] }).done;
    for (const [name, model] of [['ort', DEFAULT_MODEL], ['f32', gguf]]) {
      const r = await annotate(name, model);
      expect(r.code, r.stderr).toBe(0);
    }
    const c = compareRuns(join(work, 'ort'), join(work, 'f32'));
    console.log(`annotate ${JAPAN}, llama.cpp f32 against ONNX Runtime: ${c.paired} calls paired, max |Δ| ${JSON.stringify(c.maxAbsDelta)}, kept ${c.kept}`);
    expect(c.paired).toBe(c.referenceCalls);
    expect(c.onlyInOther).toEqual([]);
    expect(c.kept).toBe(1);
    expect(c.keptIdentical).toBe(true);
    expect(c.trainIdenticalButLosses).toBe(true);
    for (const d of Object.values(c.maxAbsDelta)) expect(d).toBeLessThan(GELU_GAP);
    expect(Math.max(...Object.values(c.maxAbsDelta))).toBeGreaterThan(0); // two runtimes, not one run twice
  }, 600_000);

  it.each(['ort', 'f32', 'f16', 'q8_0'].filter((name) => result.runs[name]?.workedLosses))('%s: the worked cases give the recorded L_a, L_b, L_c (within 1e-5)', async (name) => {
    const model = name === 'ort' ? DEFAULT_MODEL : await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype: name as 'f32', out: join(work, `worked-${name}.gguf`) });
    const lm = await openLM(model, { threads: 1 });
    try {
      const losses = await workedLosses(lm);
      losses.flat().forEach((x, i) => expect(Math.abs(x - result.runs[name].workedLosses.flat()[i])).toBeLessThan(1e-5));
    } finally {
      await lm.release?.();
    }
  }, 300_000);

  it("the gap is ggml-cpu's float16 GELU table: written into ONNX Runtime's graph, it takes most of the gap away", async () => {
    const gguf = await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype: 'f32', out: join(work, 'gelu-f32.gguf') });
    const g = await geluEvidence(join(PACKAGE_ROOT, 'corpus/sample.jsonl'), DEFAULT_MODEL, gguf, work, (m) => openLM(m, { threads: 1 }), 6);
    console.log(`GELU table, 6 sample documents: ${JSON.stringify(g)}`);
    expect(g.ortVsLlamaCpp.maxAbsDelta).toBeGreaterThan(1e-3);
    expect(g.ortWithTableVsLlamaCpp.maxAbsDelta).toBeLessThan(g.ortVsLlamaCpp.maxAbsDelta / 3);
    expect(g.ortWithTableVsLlamaCpp.tokensOver1e4).toBeLessThan(g.ortVsLlamaCpp.tokensOver1e4 / 5);
  }, 300_000);
});

describe('results/gguf-parity.json', () => {
  it('served over HTTP: every scored call the same to the last digit, the same files', () => {
    const c = result.runs.served.comparisons.ort;
    expect(c.documents).toBe('all');
    expect(c.maxAbsDelta).toEqual({ noCall: 0, callOnly: 0, withResult: 0 });
    expect([c.keptIdentical, c.trainIdentical, c.onlyInReference.length, c.onlyInOther.length]).toEqual([true, true, 0, 0]);
  });

  it('llama.cpp f32 on the whole sample: every call scored, the kept calls and the finetuning data identical', () => {
    const c = result.runs.f32.comparisons.ort;
    expect(c.documents).toBe('all');
    expect([c.paired, c.onlyInReference.length, c.onlyInOther.length]).toEqual([c.referenceCalls, 0, 0]);
    expect([c.keptIdentical, c.trainIdenticalButLosses, c.flips.length]).toEqual([true, true, 0]);
    expect(Math.max(...Object.values(c.maxAbsDelta as Record<string, number>))).toBeLessThan(GELU_GAP);
  });

  it('the exact-GELU build (--llama-gelu exact) on the whole sample: within 1e-4 of ONNX Runtime, the same files; the table build is not', () => {
    const c = result.runs['f32-exact-gelu'].comparisons.ort;
    expect(c.documents).toBe('all');
    expect([c.paired, c.onlyInReference.length, c.onlyInOther.length, c.flips.length]).toEqual([c.referenceCalls, 0, 0, 0]);
    for (const d of [...Object.values(c.maxAbsDelta as Record<string, number>), c.maxAbsDeltaUsefulness]) expect(d).toBeLessThanOrEqual(1e-4);
    expect([c.keptIdentical, c.trainIdentical]).toEqual([true, true]);
    const tokens = result.geluExactBuild;
    expect(tokens.ortVsExactBuild).toMatchObject({ tokensOver1e4: 0, tokens: 3840 });
    expect(tokens.ortVsExactBuild.maxAbsDelta).toBeLessThan(1e-4);
    expect(tokens.exactBuildVsTableBuild.maxAbsDelta).toBeGreaterThan(1e-3); // two builds, not one loaded twice
    expect(Math.max(...Object.values(result.runs.f32.comparisons.ort.maxAbsDelta as Record<string, number>))).toBeGreaterThan(1e-4);
  });

  it('Vulkan on lavapipe and f16 on the whole sample: the CPU f32 run’s kept calls and finetuning data, no flip', () => {
    for (const name of ['vulkan-f32', 'f16']) {
      const c = result.runs[name].comparisons.f32;
      expect(c.documents).toBe('all');
      expect([c.keptIdentical, c.trainIdenticalButLosses, c.flips.length]).toEqual([true, true, 0]);
    }
  });

  it('a flip across τ_f lies within the largest |Δ| of usefulness from it (a verdict cannot move further than its usefulness)', () => {
    for (const run of Object.values(result.runs)) {
      for (const c of Object.values(run.comparisons ?? {}) as any[]) for (const f of c.flips) if (f.reasons.includes('below_tau_f')) expect(f.distanceToTauF).toBeLessThanOrEqual(c.maxAbsDeltaUsefulness);
    }
  });

  it('every comparison counts its flips in the list of flips and pairs each call once', () => {
    for (const run of Object.values(result.runs)) {
      for (const c of Object.values(run.comparisons ?? {}) as any[]) {
        expect(c.paired + c.onlyInOther.length).toBe(c.calls);
        expect(c.paired + c.onlyInReference.length).toBe(c.referenceCalls);
      }
    }
  });
});
