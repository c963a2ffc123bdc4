import { describe, expect, it } from 'vitest';
import { defaultConfig } from './config.ts';
import type { Doc } from './document.ts';
import { DEFAULT_PROMPTS } from './prompts.ts';
import { type PipelineParts, annotate, spread } from './stages.ts';
import { FakeLM } from './testing/fake-lm.ts';
import type { Tool, ToolCall } from './tools/tool.ts';

/** A calculator-like tool that adds two numbers, and fails on anything else. */
const adder: Tool = {
  name: 'Add',
  description: 'adds',
  argument: { syntax: 'raw', maxLength: 20, description: 'a + b' },
  run: async (input) => {
    const m = /^(\d+) \+ (\d+)$/.exec(input);
    return m ? { ok: true, value: String(Number(m[1]) + Number(m[2])) } : { ok: false, error: 'not a sum' };
  },
};

/** Predicts "42" after "is " confidently only once "-> 42]" was seen. */
const lm = new FakeLM((context, next) => {
  if (context.endsWith('is ')) return next === '4' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
  if (context.endsWith('is 4')) return next === '2' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
  return undefined;
});

const text = 'We had 40 and then 2 more, so the total is 42 today.';
const at = text.indexOf(' 42');

function parts(proposals: ToolCall[]): PipelineParts {
  return {
    lm,
    tool: (name) => (name === 'Add' ? adder : undefined),
    execute: (calls) => Promise.all(calls.map(({ call, doc }) => adder.run(call.input, { doc }))),
    prompts: { Add: DEFAULT_PROMPTS.Calculator },
    prefilter: () => ({ pass: true }),
    heuristicPositions: () => [at],
    propose: (_tool, prefix) => (prefix === text.slice(0, at) ? proposals : []),
    leaks: (call, prefix) => (call.input.split(/\D+/).every((n) => prefix.includes(n)) ? null : 'number not in prefix'),
  };
}

async function run(proposals: ToolCall[], tauF = 0.5) {
  const config = defaultConfig({ tools: ['Add'], lmProposals: false });
  config.thresholds.Add = { tauS: 1, tauF, k: 0, m: 0 };
  const out = [];
  async function* docs(): AsyncIterable<Doc> {
    yield { id: 'd', text };
  }
  for await (const work of annotate(parts(proposals), config, docs())) out.push(...work.candidates);
  return out;
}

describe('the stages on a fake LM', () => {
  it('keeps the call whose result the text goes on to use, and gives every other candidate its reason', async () => {
    const calls = await run([
      { tool: 'Add', input: '40 + 2' },
      { tool: 'Add', input: '40 + 2' },
      { tool: 'Add', input: '40 + 40' },
      { tool: 'Add', input: '40 + 99' },
      { tool: 'Add', input: 'forty' },
      { tool: 'Search', input: 'answer' },
    ]);
    const byReason = Object.fromEntries(calls.map((c) => [`${c.input}#${c.reason}`, c]));
    expect(Object.keys(byReason).sort()).toEqual(
      [
        '40 + 2#kept',
        '40 + 2#duplicate',
        '40 + 40#below_tau_f',
        '40 + 99#leakage: number not in prefix',
        'forty#tool_error: not a sum',
        'answer#unknown_tool: Search',
      ].sort(),
    );
    const kept = byReason['40 + 2#kept'];
    expect(kept).toMatchObject({ result: '42', at, proposer: 'programmatic' });
    expect(kept.losses!.withResult).toBeLessThan(kept.losses!.callOnly);
    expect(kept.losses!.callOnly).toBeCloseTo(kept.losses!.noCall, 6);
  });

  it('applies the tool\'s τ_f', async () => {
    const [c] = await run([{ tool: 'Add', input: '40 + 2' }], 100);
    expect(c.reason).toBe('below_tau_f');
    expect(c.usefulness).toBeGreaterThan(1);
  });
});

describe('spread', () => {
  it('keeps at most n items, evenly spaced over the list', () => {
    expect(spread([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual([0, 3, 6]);
    expect(spread([1, 2], 5)).toEqual([1, 2]);
  });
});
