import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../default-config.ts';
import { createPipelineParts } from './parts.ts';
import { paperPrompt } from '../tools/prompts.ts';
import { probeNotices } from '../sampling/sampling-gate.ts';
import { probeSampling } from './sampling-probe.ts';
import type { AnnotateConfig } from '../config.ts';
import type { Doc } from '../document.ts';
import { annotate } from './stages.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import type { ToolSpec } from '../tools/spec.ts';

const spec: ToolSpec = {
  name: 'Add',
  description: 'adds',
  parameters: { type: 'object', properties: { sum: { type: 'string', maxLength: 20 } }, required: ['sum'], additionalProperties: false },
  argument: { syntax: 'raw', property: 'sum' },
  create: () => ({ run: async () => ({ ok: false, error: 'never called' }) }),
  prompt: paperPrompt('Add', 'Add numbers.', { input: '1 and 2 make 3', output: '1 and 2 make [Add(1 + 2)] 3' }),
  thresholds: { tauS: 0, tauF: 0.5, k: 2, m: 2 },
  examples: [
    { text: 'We had 40 and then 2 more, so 42 in all.', at: 30, input: '40 + 2', result: '42' },
    { text: 'Of 10 apples 3 were eaten, 7 were left.', at: 27, input: '10 - 3', result: '7' },
  ],
};

/** After " [": "x" forever (never a call), or `call` then "]" (a call every time). */
const writer = (call: string | null) =>
  new FakeLM((context, next) => {
    const open = context.lastIndexOf(' [');
    if (open < 0 || context.slice(open + 2).includes(']')) return undefined;
    const written = context.slice(open + 2);
    if (call === null) return next === 'x' ? 0.99 : undefined;
    const want = (call + ']')[written.length];
    return want !== undefined && next === want ? 0.99 : undefined;
  });

const config = (): AnnotateConfig => {
  const c: AnnotateConfig = { ...defaultConfig({ tools: ['Add'], lmProposals: true }), samplingGate: { minSamples: 6, minParseRate: 0.5 } };
  c.thresholds.Add = { ...spec.thresholds };
  return c;
};
const parts = (lm: FakeLM) => createPipelineParts({ lm, resources: {}, specs: [spec] });

describe('the sampling probe', () => {
  it('samples minSamples calls over the worked examples and counts those that parse', async () => {
    expect(await probeSampling(parts(writer(null)), config())).toEqual({ Add: { samples: 6, parsed: 0 } });
    expect(await probeSampling(parts(writer('Add(1 + 2)')), config())).toEqual({ Add: { samples: 6, parsed: 6 } });
  });

  it('says which tools it turned off, once each', async () => {
    const c = config();
    expect(probeNotices(await probeSampling(parts(writer(null)), c), c.samplingGate)).toEqual([
      'Add: 0 of 6 calls sampled at its worked examples parsed; no LM sampling for Add in this run (--force-lm-sampling samples anyway)',
    ]);
    expect(probeNotices(await probeSampling(parts(writer('Add(1 + 2)')), c), c.samplingGate)).toEqual([]);
  });

  it('probes nothing without a gate, without LM proposals, or for a tool without examples', async () => {
    expect(await probeSampling(parts(writer(null)), { ...config(), samplingGate: null })).toEqual({});
    expect(await probeSampling(parts(writer(null)), { ...config(), lmProposals: false })).toEqual({});
    const bare = createPipelineParts({ lm: writer(null), resources: {}, specs: [{ ...spec, examples: undefined }] });
    expect(await probeSampling(bare, config())).toEqual({});
  });

  it('a run samples no calls for a tool its probe turned off, and samples as before otherwise', async () => {
    const lmCalls = async (c: AnnotateConfig) => {
      async function* docs(): AsyncIterable<Doc> {
        yield { id: 'd', text: 'We had 40 and then 2 more, so the total is 42 today.' };
      }
      let n = 0;
      for await (const work of annotate(parts(writer(null)), c, docs())) n += work.candidates.filter((x) => x.proposer === 'lm').length;
      return n;
    };
    expect(await lmCalls(config())).toBe(4); // no probe: k 2 × m 2
    expect(await lmCalls({ ...config(), samplingProbe: { Add: { samples: 6, parsed: 0 } } })).toBe(0);
    expect(await lmCalls({ ...config(), samplingProbe: { Add: { samples: 6, parsed: 0 } }, samplingGate: null })).toBe(4); // --force-lm-sampling
    expect(await lmCalls({ ...config(), samplingProbe: { Add: { samples: 6, parsed: 3 } } })).toBe(4);
  });
});
