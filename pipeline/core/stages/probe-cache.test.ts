import { describe, expect, it } from 'vitest';
import { planConfig } from '../run-plan.ts';
import { TOOL_SPECS } from '../tools/registry.ts';
import { PROBE_VERSION, probeCacheRecord, probeKeyInputs, readProbeCacheRecord } from './probe-cache.ts';

const flags = { seed: 0, batchSize: 16, concurrency: 4, lmProposals: true };
const specOf = (name: string) => TOOL_SPECS.find((s) => s.name === name);
const model = { digest: 'a'.repeat(64), dtype: 'fp32', versions: { 'onnxruntime-node': '1.30.0' } };
const keyOf = (config = planConfig(flags), specs = specOf, lmContext = 'auto', m = model) => JSON.stringify(probeKeyInputs(config, specs, lmContext, m));
const verdicts = { lmContext: 'prompt' as const, bareProbe: { QA: { samples: 25, parsed: 0 } }, samplingProbe: { QA: { samples: 100, parsed: 3 } } };

describe('the probe verdict cache key', () => {
  it('changes with the model, the seed, the --lm-context flag, the settings the probes read, a tool\'s prompt or examples', () => {
    const base = keyOf();
    const changed = [
      keyOf(planConfig(flags), specOf, 'auto', { ...model, digest: 'b'.repeat(64) }),
      keyOf(planConfig(flags), specOf, 'auto', { ...model, dtype: 'q8' }),
      keyOf(planConfig({ ...flags, seed: 1 })),
      keyOf(planConfig(flags), specOf, 'prompt'),
      keyOf(planConfig({ ...flags, topK: 5 })),
      keyOf(planConfig({ ...flags, tools: 'QA,Calendar' })),
      keyOf(planConfig({ ...flags, m: 2 })),
      keyOf(planConfig({ ...flags, forceLmSampling: true })),
      keyOf(planConfig({ ...flags, device: 'webgpu' })),
      keyOf(planConfig(flags), (name) => {
        const spec = specOf(name)!;
        return name === 'QA' ? { ...spec, prompt: { ...spec.prompt, variants: [(x: string) => `Ask: ${x}`] } } : spec;
      }),
      keyOf(planConfig(flags), (name) => (name === 'Calendar' ? { ...specOf(name)!, examples: [] } : specOf(name))),
    ];
    for (const key of changed) expect(key).not.toBe(base);
    expect(new Set(changed).size).toBe(changed.length);
  });

  it('does not change with what the probes do not read: batch size, tool concurrency, τ_f, the control margin', () => {
    expect(keyOf(planConfig({ ...flags, batchSize: 4, concurrency: 1, tauF: 3, controlMargin: 2, device: 'cpu' }))).toBe(keyOf());
  });
});

describe('a cached record', () => {
  const tools = ['Calculator', 'QA', 'Calendar', 'Translate'];
  it('reads back the verdicts it was written with', () => {
    expect(readProbeCacheRecord(probeCacheRecord('k1', verdicts), 'k1', tools)).toEqual(verdicts);
  });

  it('is not trusted when damaged or written for something else (a reason, not verdicts)', () => {
    const good = JSON.parse(probeCacheRecord('k1', verdicts));
    const bad: [string, RegExp][] = [
      ['{"probeVersion": 1, "key": "k1", "verd', /not JSON/],
      ['null', /not a record/],
      [JSON.stringify({ ...good, probeVersion: PROBE_VERSION + 1 }), /probe version/],
      [probeCacheRecord('k2', verdicts), /another key/],
      [JSON.stringify({ ...good, verdicts: { ...verdicts, lmContext: 'inline' } }), /lmContext/],
      [JSON.stringify({ ...good, verdicts: { ...verdicts, samplingProbe: { QA: { samples: 10, parsed: 11 } } } }), /QA's counts/],
      [JSON.stringify({ ...good, verdicts: { ...verdicts, samplingProbe: { QA: { samples: -1, parsed: 0 } } } }), /QA's counts/],
      [JSON.stringify({ ...good, verdicts: { ...verdicts, bareProbe: { Search: { samples: 1, parsed: 0 } } } }), /"Search", not one of the run's tools/],
      [JSON.stringify({ ...good, verdicts: { ...verdicts, bareProbe: [1] } }), /not an object/],
    ];
    for (const [text, reason] of bad) expect(readProbeCacheRecord(text, 'k1', tools)).toMatch(reason);
  });
});
