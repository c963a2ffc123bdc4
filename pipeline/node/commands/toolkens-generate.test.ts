/**
 * Generation with toolkens (core/toolkens/generate.ts) on the bundled model and the real tools: a toolken that wins
 * switches to tool mode, the call runs, its result is inserted where the toolken fired; a failing call backs off to
 * the next candidate. The toolkens here are planted (W_τ = 0, the bias decides), so what fires is known; in
 * constrained mode the model's pick is tested on a text whose first proposal is wrong (a constrained mode that ignored
 * the model would fail it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolExecutor } from '../../core/stages/execute.ts';
import { generateWithToolkens, type ToolkenCall } from '../../core/toolkens/generate.ts';
import type { Toolkens } from '../../core/toolkens/file.ts';
import { TOOL_SPECS } from '../../core/tools/registry.ts';
import { createNodeExecutor } from './generate-command.ts';
import { loadModel } from '../model/load-model.ts';

let lm: Awaited<ReturnType<typeof loadModel>>;
let executor: ToolExecutor;
const specs = new Map(TOOL_SPECS.map((s) => [s.name, s]));
const planted = (tools: string[]): Toolkens => ({ tools, hiddenSize: 256, weights: new Float32Array(tools.length * 256), meta: {} });

beforeAll(async () => {
  lm = await loadModel('models/default', { lm: { hiddenStates: true } });
  executor = await createNodeExecutor();
});
afterAll(() => lm.release());

describe('generateWithToolkens', () => {
  it('constrained: a winning QA toolken picks among the proposer’s calls, runs it and inserts the result', async () => {
    const g = await generateWithToolkens(lm, executor, 'The capital city of Kyrgyzstan is', {
      toolkens: planted(['QA']), specs, mode: 'constrained', bias: 1000, maxNewTokens: 6, doc: { id: 't' },
    });
    expect(g.calls).toHaveLength(1);
    expect(g.calls[0]).toMatchObject({ tool: 'QA', input: 'What is the capital of Kyrgyzstan?', result: 'Bishkek', mode: 'constrained' });
    expect(g.calls[0].proposals).toBeGreaterThan(0);
    expect(g.text.startsWith(' Bishkek')).toBe(true);
  });

  it('constrained: the model\'s pick decides, not the proposer\'s order — the first question here is the wrong one', async () => {
    // The proposer asks about the document's topic (Germany) first; the text asks for Austria's capital. Ignoring the
    // model (taking the first proposal) answers Berlin; the model's likeliest call asks for Austria.
    const g = await generateWithToolkens(lm, executor, 'Germany: People and Society. Austria lies to the south. The capital city of Austria is', {
      toolkens: planted(['QA']), specs, mode: 'constrained', bias: 1000, maxNewTokens: 4, doc: { id: 't' },
    });
    const call = g.calls[0] as ToolkenCall;
    expect(call.proposalInputs?.[0]).toBe('What is the capital of Germany?');
    expect(call.proposalInputs).toContain('What is the capital of Austria?');
    expect(call).toMatchObject({ input: 'What is the capital of Austria?', result: 'Vienna' });
    expect(g.text.startsWith(' Vienna')).toBe(true);
  });

  it('reports each call as it settles, before its result is inserted, and each failed one before the back-off', async () => {
    const events: string[] = [];
    const g = await generateWithToolkens(lm, executor, 'Tom had 37 apples and got 48 more. In all, Tom has', {
      toolkens: planted(['QA', 'Calculator']), specs, mode: 'constrained', bias: 1000, maxNewTokens: 4, maxCalls: 2,
      onCall: (c) => events.push(`call ${c.tool}(${c.input}) ${c.result ?? `error ${c.error}`}`),
      onText: (p) => events.push(`${p.kind} ${p.text}`),
    });
    // QA's proposer asks about "Tom" (unknown to the knowledge base): it fails, and the next toolken is tried at once.
    expect(g.calls.map((c) => [c.tool, c.error !== undefined])).toEqual([['QA', true], ['Calculator', false]]);
    expect(events.slice(0, 3)).toEqual([
      `call QA(${g.calls[0].input}) error ${g.calls[0].error}`,
      `call Calculator(${g.calls[1].input}) ${g.calls[1].result}`,
      `result  ${g.calls[1].result}`,
    ]);
  });

  it('free: the tool-mode prompt writes the argument until ")" (the call is recorded whatever it says)', async () => {
    const g = await generateWithToolkens(lm, executor, 'The capital city of Kyrgyzstan is', {
      toolkens: planted(['QA']), specs, mode: 'free', bias: 1000, maxNewTokens: 6, doc: { id: 't' },
    });
    expect(g.calls[0]).toMatchObject({ tool: 'QA', mode: 'free' });
    expect(g.calls[0].result !== undefined || g.calls[0].error !== undefined).toBe(true);
  });

  it('a failing call backs off to the next candidate: the text is what the model writes with toolkens that never win', async () => {
    const prompt = 'She smiled and said that the weather was';
    const never = await generateWithToolkens(lm, executor, prompt, { toolkens: planted(['QA']), specs, bias: -1000, maxNewTokens: 8 });
    expect(never.calls).toEqual([]);
    const g = await generateWithToolkens(lm, executor, prompt, { toolkens: planted(['QA']), specs, mode: 'constrained', bias: 1000, maxNewTokens: 8 });
    expect(g.calls).toEqual([{ tool: 'QA', input: '', raw: '', mode: 'constrained', proposals: 0, proposalInputs: [], error: 'no proposal for this context' }]);
    expect(g.text).toBe(never.text);
  });

  it('refuses toolkens made for another hidden size', async () => {
    await expect(generateWithToolkens(lm, executor, 'x', { toolkens: { ...planted(['QA']), hiddenSize: 8, weights: new Float32Array(8) }, specs })).rejects.toThrow(/hidden size 8, the model's is 256/);
  });
});
