import { describe, expect, it } from 'vitest';
import { reasonText } from '../candidates.ts';
import { defaultConfig } from '../default-config.ts';
import type { Doc } from '../document.ts';
import { createPipelineParts } from './parts.ts';
import { type PipelineParts, type StageProgress, annotate, spread } from './stages.ts';
import { adderTool } from '../testing/adder-tool.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import type { ToolSpec } from '../tools/spec.ts';

/** The adder test tool, proposed (with `proposals`) right before " 42". */
const adder = (proposals: string[]): ToolSpec => adderTool({
  positions: () => [at],
  propose: (prefix) => (prefix === text.slice(0, at) ? proposals : []),
  leaks: (input, prefix) => (input.split(/\D+/).every((n) => prefix.includes(n)) ? null : 'number not in prefix'),
});

/** Predicts "42" after "is " confidently only once "-> 42]" was seen. */
const lm = new FakeLM((context, next) => {
  if (context.endsWith('is ')) return next === '4' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
  if (context.endsWith('is 4')) return next === '2' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
  return undefined;
});

const text = 'We had 40 and then 2 more, so the total is 42 today.';
const at = text.indexOf(' 42');

function parts(proposals: string[]): PipelineParts {
  return createPipelineParts({ lm, resources: {}, specs: [adder(proposals)] });
}

async function run(proposals: string[], tauF = 0.5) {
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
    const calls = await run(['40 + 2', '40 + 2', '40 + 40', '40 + 99', '40 + 2 + 2', 'forty']);
    const byReason = Object.fromEntries(calls.map((c) => [`${c.input}#${reasonText(c.outcome)}`, c]));
    expect(Object.keys(byReason).sort()).toEqual(
      [
        '40 + 2#kept',
        '40 + 2#duplicate',
        '40 + 40#below_tau_f',
        '40 + 99#leakage: number not in prefix',
        '40 + 2 + 2#tool_error: not a sum',
        'forty#schema_error: sum must match pattern "^[0-9 +]+$"',
      ].sort(),
    );
    const kept = byReason['40 + 2#kept'];
    expect(kept).toMatchObject({ result: '42', at, proposer: 'programmatic', tool: 'Add', positionTool: 'Add' });
    expect(kept.losses!.withResult).toBeLessThan(kept.losses!.callOnly!);
    expect(kept.losses!.callOnly).toBeCloseTo(kept.losses!.noCall, 6);
  });

  it('scores L_b only where L_a − L_c reaches min(τ_f, --tau-f-floor); the rest keep L_a, L_c and their bound', async () => {
    const annotateAt = async (tauFFloor: number) => {
      const config = defaultConfig({ tools: ['Add'], lmProposals: false, tauFFloor });
      config.thresholds.Add = { tauS: 1, tauF: 0.5, k: 0, m: 0 };
      const calls = [];
      for await (const work of annotate(parts(['40 + 2', '40 + 40']), config, (async function* () { yield { id: 'd', text }; })())) calls.push(...work.candidates);
      return calls;
    };
    // 40 + 40 -> 80 makes " 42" no likelier: L_a − L_c ≈ 0, below τ_min = min(0.5, 0.25), so its L_b is skipped.
    const [right, skipped] = await annotateAt(0.25);
    const [rightAll, wrong] = await annotateAt(-5);
    expect(right).toEqual(rightAll);
    expect(right.outcome.kind).toBe('kept');
    expect([skipped.outcome.kind, wrong.outcome.kind]).toEqual(['below_tau_f', 'below_tau_f']);
    expect(skipped.losses).toEqual({ noCall: wrong.losses!.noCall, withResult: wrong.losses!.withResult });
    expect(skipped.usefulness).toBeUndefined();
    expect(skipped.usefulnessAtMost).toBe(wrong.losses!.noCall - wrong.losses!.withResult);
    expect(skipped.usefulnessAtMost).toBeLessThan(0.25);
    expect(wrong.usefulness).toBe(Math.min(wrong.losses!.noCall, wrong.losses!.callOnly!) - wrong.losses!.withResult);
    expect(wrong.usefulnessAtMost).toBeUndefined();
  });

  it('measures the counterfactual control: the true result beats a distractor ("97") by far', async () => {
    const [c] = await run(['40 + 2']);
    expect(reasonText(c.outcome)).toBe('kept');
    expect(c.control!.distractor).toBe('97');
    expect(c.control!.margin).toBeGreaterThan(1);
  });

  it('drops a call whose result helps no more than a wrong one (below_control), and keeps it without the control', async () => {
    const anyResult = new FakeLM((context, next) => (context.endsWith('is ') && next === '4' ? (/-> \d/.test(context) ? 0.9 : 0.01) : undefined));
    const config = defaultConfig({ tools: ['Add'], lmProposals: false });
    config.thresholds.Add = { tauS: 1, tauF: 0.5, k: 0, m: 0 };
    const judged = async (controlMargin: number | null) => {
      const out = [];
      async function* docs(): AsyncIterable<Doc> {
        yield { id: 'd', text };
      }
      const p = createPipelineParts({ lm: anyResult, resources: {}, specs: [adder(['40 + 2'])] });
      for await (const work of annotate(p, { ...config, controlMargin }, docs())) out.push(...work.candidates);
      return out[0];
    };
    const controlled = await judged(1);
    expect(controlled.outcome.kind).toBe('below_control');
    expect(controlled.usefulness).toBeGreaterThan(0.5);
    expect(Math.abs(controlled.control!.margin)).toBeLessThan(0.1);
    expect((await judged(null)).outcome.kind).toBe('kept');
  });

  it('scores each writing a tool offers for a result as its own candidate, and keeps the one that helps', async () => {
    const config = defaultConfig({ tools: ['Add'], lmProposals: false });
    config.thresholds.Add = { tauS: 1, tauF: 0.5, k: 0, m: 0 };
    const spec = { ...adder(['40 + 2']), resultForms: (r: string) => [`${r}.0`] };
    const out = [];
    async function* docs(): AsyncIterable<Doc> {
      yield { id: 'd', text };
    }
    for await (const work of annotate(createPipelineParts({ lm, resources: {}, specs: [spec] }), config, docs())) out.push(...work.candidates);
    expect(out.map((c) => [c.input, c.result, reasonText(c.outcome)])).toEqual([
      ['40 + 2', '42', 'kept'],
      ['40 + 2', '42.0', 'below_tau_f'],
    ]);
  });

  it('reports its progress per stage, each ending at its total, and decides the same with or without a listener', async () => {
    const proposals = ['40 + 2', '40 + 2', '40 + 40', '40 + 99', '40 + 2 + 2', 'forty'];
    const steps: StageProgress[] = [];
    const config = defaultConfig({ tools: ['Add'], lmProposals: false });
    config.thresholds.Add = { tauS: 1, tauF: 0.5, k: 0, m: 0 };
    async function* docs(): AsyncIterable<Doc> {
      yield { id: 'd', text };
    }
    const listened = { ...parts(proposals), progress: (s: StageProgress) => steps.push(s) };
    const out = [];
    for await (const work of annotate(listened, config, docs())) out.push(...work.candidates);
    expect(out).toEqual(await run(proposals));
    const last = (stage: string) => steps.filter((s) => s.stage === stage).at(-1);
    expect(steps[0]).toEqual({ stage: 'positions', tool: 'Add', done: 0, total: 1 });
    // Three calls pass the guard (one fails in the tool), two are scored, one reaches τ_f and is checked by the control.
    expect(last('executing')).toEqual({ stage: 'executing', done: 3, total: 3 });
    expect(last('scoring')).toEqual({ stage: 'scoring', done: 2, total: 2 });
    expect(last('control')).toEqual({ stage: 'control', done: 1, total: 1 });
    expect(steps.map((s) => s.stage).filter((s, i, all) => s !== all[i - 1])).toEqual(['positions', 'executing', 'scoring', 'control']);
  });

  it('applies the tool\'s τ_f', async () => {
    const [c] = await run(['40 + 2'], 100);
    expect(reasonText(c.outcome)).toBe('below_tau_f');
    expect(c.usefulness).toBeGreaterThan(1);
  });
});

describe('spread', () => {
  it('keeps at most n items, evenly spaced over the list', () => {
    expect(spread([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 3)).toEqual([0, 3, 6]);
    expect(spread([1, 2], 5)).toEqual([1, 2]);
  });
});
