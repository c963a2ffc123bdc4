import { describe, expect, it } from 'vitest';
import { type Candidate, reasonText } from '../candidates.ts';
import type { AnnotateConfig } from '../config.ts';
import { defaultConfig } from '../default-config.ts';
import type { Doc } from '../document.ts';
import type { SampleOptions } from '../lm/lm.ts';
import { chooseLmContext } from '../sampling/lm-context.ts';
import { adderTool } from '../testing/adder-tool.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import type { ToolSpec } from '../tools/spec.ts';
import { createPipelineParts } from './parts.ts';
import { annotate } from './stages.ts';

const text = 'We had 40 and then 2 more, so the total is 42 today.';
const at = text.indexOf(' 42');
const CALL = 'Add(40 + 2)]';

/** The adder test tool; `name` lets two tools share the LM's positions. */
const adder = (name: string): ToolSpec => adderTool({
  name,
  thresholds: { tauS: 0.5, tauF: 0.5, k: 1, m: 2 },
  positions: () => [text.indexOf(' 2 more')],
  propose: () => ['40 + 2'],
});

/**
 * A model that writes calls inline: p(" [") = 0.9 after "total is" (on the bare text or under a prompt), then writes
 * "Add(40 + 2)]", and predicts "42" confidently once "-> 42]" was seen. Records every context it samples from.
 */
function inlineWriter() {
  const sampledFrom: string[] = [];
  const lm = new FakeLM((context, next) => {
    const open = context.lastIndexOf(' [');
    const partial = open >= 0 ? context.slice(open + 2) : null;
    if (partial !== null && CALL.startsWith(partial) && partial.length < CALL.length && !partial.includes(']')) return next === CALL[partial.length] ? 1 : 0;
    if (context.endsWith('total is')) return next === ' [' ? 0.9 : undefined;
    if (context.endsWith('is ')) return next === '4' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
    if (context.endsWith('is 4')) return next === '2' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
    return undefined;
  });
  const sample = lm.sample.bind(lm);
  lm.sample = (prompt: readonly number[], options: SampleOptions) => {
    sampledFrom.push(lm.decode(prompt));
    return sample(prompt, options);
  };
  return { lm, sampledFrom };
}

async function run(config: AnnotateConfig, tools: string[]) {
  const { lm, sampledFrom } = inlineWriter();
  const parts = createPipelineParts({ lm, resources: {}, specs: tools.map(adder) });
  const candidates: Candidate[] = [];
  async function* docs(): AsyncIterable<Doc> {
    yield { id: 'd', text };
  }
  for await (const work of annotate(parts, config, docs())) candidates.push(...work.candidates);
  return { candidates, sampledFrom };
}

const configFor = (tools: string[], overrides: Partial<AnnotateConfig>) => {
  const config = defaultConfig({ tools, controlMargin: null, samplingGate: null, ...overrides }, tools.map(adder));
  return config;
};

describe('the propose stage, LM context bare (a model that writes its calls inline)', () => {
  it('samples from the text before the position and " [" alone — no prompt, nothing after the position', async () => {
    const { candidates, sampledFrom } = await run(configFor(['Add'], { lmContext: 'bare', programmatic: false }), ['Add']);
    expect(sampledFrom).toEqual([text.slice(0, at) + ' [']);
    expect(candidates.map((c) => [c.proposer, c.tool, c.input, c.at, reasonText(c.outcome)])).toEqual([
      ['lm', 'Add', '40 + 2', at, 'kept'],
      ['lm', 'Add', '40 + 2', at, 'duplicate'],
    ]);
    expect(candidates[0].positionP).toBeCloseTo(0.9, 5);
  });

  it('with two tools selecting the same position, samples it once, and files the call under the tool it names', async () => {
    const { candidates, sampledFrom } = await run(configFor(['Sum', 'Add'], { lmContext: 'bare', programmatic: false }), ['Sum', 'Add']);
    expect(sampledFrom).toHaveLength(1);
    expect(candidates.every((c) => c.positionTool === 'Add' && c.proposer === 'lm')).toBe(true);
  });

  it('keeps the programmatic proposers and heuristic positions unless programmatic is off', async () => {
    const on = await run(configFor(['Add'], { lmContext: 'bare' }), ['Add']);
    expect(on.candidates.filter((c) => c.proposer === 'programmatic').map((c) => c.at).sort()).toEqual([text.indexOf(' 2 more'), at].sort());
    const off = await run(configFor(['Add'], { lmContext: 'bare', programmatic: false }), ['Add']);
    expect(off.candidates.some((c) => c.proposer === 'programmatic')).toBe(false);
  });
});

describe('the propose stage, LM context prompt (the paper\'s P(x))', () => {
  it('samples under the tool\'s prompt, which shows the model the window', async () => {
    const { sampledFrom } = await run(configFor(['Add'], { lmContext: 'prompt', programmatic: false }), ['Add']);
    expect(sampledFrom).toHaveLength(1);
    expect(sampledFrom[0].startsWith('Add numbers.')).toBe(true);
    expect(sampledFrom[0]).toContain(text); // P(x) holds the whole window, the text after the position included
    expect(sampledFrom[0].endsWith(text.slice(0, at) + ' [')).toBe(true);
  });
});

describe('chooseLmContext', () => {
  it('picks bare at a pooled parse rate of 0.2 or more, prompt below it or with no samples', () => {
    expect(chooseLmContext({ A: { samples: 25, parsed: 5 }, B: { samples: 25, parsed: 5 } })).toBe('bare');
    expect(chooseLmContext({ A: { samples: 25, parsed: 4 }, B: { samples: 25, parsed: 5 } })).toBe('prompt');
    expect(chooseLmContext({})).toBe('prompt');
  });
});
