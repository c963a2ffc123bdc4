import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { validateConfig } from '../../core/config.ts';
import { defaultConfig } from '../../core/default-config.ts';
import { mcpTools, openAiTools } from '../../core/tools/definitions.ts';
import { TOOL_NAMES } from '../../core/tools/registry.ts';
import { TOOL_SPECS } from '../../core/tools/testing/registry.ts';
import { runAnnotate } from '../run/annotate-run.ts';
import { loadModel } from '../model/load-model.ts';
import { createNodeParts } from './parts.ts';

/**
 * The tool-as-plugin design, proved: a fifth tool (pipeline/core/tools/testing/unit-convert/, a toy converter over a
 * fixed table) added by its folder and one registry line runs through the whole Node pipeline — pre-filter,
 * positions, its programmatic proposer, the registry's schema check, the leakage guard, execution, scoring on the
 * committed tiny-random model, judging — and lands in calls.jsonl, train.jsonl and stats.json like any other tool.
 */
const root = resolve(import.meta.dirname, '../../..');
const tmp = mkdtempSync(join(tmpdir(), 'fifth-tool-'));
const corpus = join(tmp, 'corpus.jsonl');
writeFileSync(corpus, [
  { id: 'trail', text: 'The trail is 12 km (7.46 mi) long and climbs 800 m (2624.67 ft) to the pass.' },
  { id: 'crate', text: 'Each crate weighs 20 kg, about 44.09 lb, when it is full.' },
  { id: 'plain', text: 'Nothing here is measured in any unit at all.' },
].map((d) => JSON.stringify(d)).join('\n') + '\n');

// τ_f far below any usefulness: every scored call is kept, so inlining is exercised too; no control (the random
// model's margins sit at 0).
const config = defaultConfig({ tools: ['UnitConvert'], seed: 5, controlMargin: null }, TOOL_SPECS);
config.thresholds.UnitConvert = { ...config.thresholds.UnitConvert, tauF: -100, k: 2, m: 1 };

const lines = (file: string) => readFileSync(join(tmp, 'out', file), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

beforeAll(async () => {
  const lm = await loadModel(join(root, 'models/tiny-random'));
  const { parts } = await createNodeParts(lm, config, TOOL_SPECS);
  await runAnnotate(parts, { inputs: [corpus], outDir: join(tmp, 'out'), meta: { model: 'models/tiny-random' }, config });
}, 120_000);

describe('a fifth tool added as a folder and one registry line', () => {
  it('is a known tool of the test registry only', () => {
    expect(validateConfig(config, TOOL_SPECS.map((s) => s.name))).toBeNull();
    expect(validateConfig(config, TOOL_NAMES)).toMatch(/^unknown tool "UnitConvert"/);
    const openai = openAiTools(TOOL_SPECS).find((t) => t.function.name === 'UnitConvert');
    expect(openai?.function.parameters).toMatchObject({ type: 'object', required: ['conversion'] });
    expect(mcpTools(TOOL_SPECS).map((t) => t.name)).toEqual([...TOOL_NAMES, 'UnitConvert']);
  });

  it('writes its proposed, executed and scored calls to calls.jsonl with three losses', () => {
    const calls = lines('calls.jsonl');
    const proposed = calls.filter((c) => c.tool === 'UnitConvert' && c.proposer === 'programmatic');
    expect(proposed.map((c) => [c.docId, c.at, c.input, c.result])).toEqual(expect.arrayContaining([
      ['trail', 18, '12 km to mi', '7.46 mi'],
      ['crate', 30, '20 kg to lb', '44.09 lb'],
    ]));
    for (const c of proposed.filter((c) => c.result !== undefined)) {
      for (const loss of Object.values(c.losses)) expect(Number.isFinite(loss)).toBe(true);
      expect(Object.keys(c.losses)).toEqual(['noCall', 'callOnly', 'withResult']);
      expect(c.usefulness).toBeCloseTo(Math.min(c.losses.noCall, c.losses.callOnly) - c.losses.withResult, 3);
      expect(c.kept).toBe(true);
    }
    expect(calls.some((c) => c.docId === 'plain' && c.proposer === 'programmatic')).toBe(false);
  });

  it('inlines its kept calls into train.jsonl and counts them in stats.json', () => {
    const trail = lines('train.jsonl').find((r) => r.id === 'trail');
    expect(trail.text).toContain('The trail is 12 km [UnitConvert(12 km to mi) -> 7.46 mi] (7.46 mi) long');
    const stats = JSON.parse(readFileSync(join(tmp, 'out', 'stats.json'), 'utf8'));
    expect(Object.keys(stats.tools)).toEqual(['UnitConvert']);
    expect(stats.tools.UnitConvert.byProposer.programmatic).toBeGreaterThanOrEqual(2);
    expect(stats.tools.UnitConvert.kept).toBeGreaterThanOrEqual(2);
  });
});
