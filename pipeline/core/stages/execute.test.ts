import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ToolExecutor } from './execute.ts';
import { paperPrompt } from '../tools/prompts.ts';
import type { KnowledgeBase } from '../tools/qa/qa.ts';
import { TOOL_SPECS, ToolRegistry } from '../tools/registry.ts';
import { PAPER_DEFAULTS, type ToolSpec } from '../tools/spec.ts';
import type { ToolResult } from '../tools/tool.ts';

const kb = JSON.parse(readFileSync(new URL('../../data/kb.json', import.meta.url), 'utf8')) as KnowledgeBase;
const doc = { id: 'd1', date: '2023-01-30' };

/** A test tool whose behaviour is chosen by its input. */
function scripted(name: string, behaviour: (input: string, signal?: AbortSignal) => Promise<ToolResult> | ToolResult): ToolSpec {
  return {
    name,
    description: 'test tool',
    parameters: { type: 'object', properties: { text: { type: 'string', maxLength: 100 } }, required: ['text'], additionalProperties: false },
    argument: { syntax: 'quoted', property: 'text' },
    create: () => ({ run: async (input, context) => behaviour(input, context.signal) }),
    prompt: paperPrompt(name, 'test', { input: 'x', output: 'x' }),
    thresholds: PAPER_DEFAULTS,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ToolRegistry', () => {
  const registry = new ToolRegistry(TOOL_SPECS, { kb });
  it('holds the paper four tools under their call names', () => {
    expect(registry.names).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);
    expect(registry.get('QA')?.argument.syntax).toBe('quoted');
  });
  it('rejects unknown, mis-cased and prototype names with a reason', () => {
    for (const name of ['Calculatr', 'calculator', '__proto__', 'constructor', 'toString', '']) {
      expect(registry.get(name), name).toBeUndefined();
      expect(registry.resolve(name)).toMatchObject({ ok: false, error: expect.stringMatching(/^unknown tool .*known: Calculator, QA, Calendar, Translate/) });
    }
  });
  it('refuses two tools with one name', () => {
    expect(() => new ToolRegistry([scripted('X', () => ({ ok: true, value: '' })), scripted('X', () => ({ ok: true, value: '' }))])).toThrow(/two tools named X/);
  });
});

describe('ToolExecutor', () => {
  it('runs the default tools through the registry', async () => {
    const executor = new ToolExecutor(new ToolRegistry(TOOL_SPECS, { kb }));
    const results = await executor.executeAll([
      { call: { tool: 'Calculator', input: '400 / 1400' }, doc },
      { call: { tool: 'Calendar', input: '' }, doc },
      { call: { tool: 'QA', input: 'What is the capital of Pennsylvania?' }, doc },
      { call: { tool: 'Translate', input: 'la casa es grande' }, doc },
      { call: { tool: 'Search', input: 'x' }, doc },
    ]);
    expect(results.map(({ ms, ...r }) => r)).toEqual([
      { ok: true, value: '0.29' },
      { ok: true, value: 'Today is Monday, January 30, 2023.' },
      { ok: true, value: 'Harrisburg' },
      { ok: false, error: expect.stringMatching(/^translation engine not installed/) },
      { ok: false, error: 'unknown tool "Search" (known: Calculator, QA, Calendar, Translate)' },
    ]);
    for (const r of results) expect(r.ms).toBeGreaterThanOrEqual(0);
  });

  it('validates arguments against the tool\'s JSON Schema before dispatch', async () => {
    const executor = new ToolExecutor(new ToolRegistry(TOOL_SPECS, { kb }));
    const results = await executor.executeAll([
      { call: { tool: 'Calculator', input: '' }, doc },
      { call: { tool: 'Calendar', input: 'now' }, doc },
    ]);
    expect(results.map(({ ms, ...r }) => r)).toEqual([
      { ok: false, error: 'schema_error: expression must NOT have fewer than 1 characters', schemaError: 'expression must NOT have fewer than 1 characters' },
      { ok: false, error: 'schema_error: arguments must NOT have additional properties (argument)', schemaError: 'arguments must NOT have additional properties (argument)' },
    ]);
  });

  it('a hanging tool times out (and sees its signal aborted); a throwing tool is an error; the rest go on', async () => {
    let aborted = false;
    const registry = new ToolRegistry([
      scripted('Hang', (_input, signal) => {
        signal?.addEventListener('abort', () => (aborted = true));
        return new Promise<ToolResult>(() => {});
      }),
      scripted('Throw', () => {
        throw new Error('boom');
      }),
      scripted('ThrowOdd', () => {
        throw { toString: () => { throw new Error('nested'); } };
      }),
      scripted('Garbage', () => ({ ok: 'yes' }) as unknown as ToolResult),
      scripted('Huge', () => ({ ok: true, value: 'x'.repeat(5000) })),
      scripted('Echo', (input) => ({ ok: true, value: input })),
    ]);
    const executor = new ToolExecutor(registry, { timeoutMs: 100, concurrency: 2 });
    // Two hanging calls on two slots: without the timeout this never resolves and the test times out.
    const results = await executor.executeAll(
      ['Hang', 'Throw', 'ThrowOdd', 'Garbage', 'Huge', 'Echo', 'Hang'].map((tool) => ({ call: { tool, input: 'hi' }, doc })),
    );
    expect(results.map((r) => (r.ok ? r.value : r.error))).toEqual([
      'timed out after 100 ms',
      'Throw failed: boom',
      'ThrowOdd failed: unprintable error',
      'tool returned an invalid result',
      'result longer than 1000 characters',
      'hi',
      'timed out after 100 ms',
    ]);
    expect(aborted).toBe(true);
  });

  it('caps input length before running the tool', async () => {
    let ran = 0;
    const executor = new ToolExecutor(new ToolRegistry([scripted('Echo', (input) => (ran++, { ok: true, value: input }))]), { maxInputLength: 50 });
    const [long, tooLong] = await executor.executeAll([
      { call: { tool: 'Echo', input: 'x'.repeat(50) }, doc },
      { call: { tool: 'Echo', input: 'x'.repeat(100_000) }, doc },
    ]);
    expect(long.ok).toBe(true);
    expect(tooLong).toMatchObject({ ok: false, error: 'input longer than 50 characters' });
    expect(ran).toBe(1);
  });

  it('runs a repeated call once per document; crashes are not remembered', async () => {
    const runs: string[] = [];
    let failNext = true;
    const tool = scripted('Count', async (input) => {
      runs.push(input);
      await sleep(5);
      if (input === 'flaky' && failNext) {
        failNext = false;
        throw new Error('transient');
      }
      return { ok: true, value: input.toUpperCase() };
    });
    const executor = new ToolExecutor(new ToolRegistry([tool]), { concurrency: 4 });
    const other = { id: 'd2', date: '2023-01-30' };
    const results = await executor.executeAll([
      { call: { tool: 'Count', input: 'a' }, doc },
      { call: { tool: 'Count', input: 'a' }, doc },
      { call: { tool: 'Count', input: 'a' }, doc: other },
      { call: { tool: 'Count', input: 'flaky' }, doc },
    ]);
    expect(results.map((r) => (r.ok ? r.value : r.error))).toEqual(['A', 'A', 'A', 'Count failed: transient']);
    expect(await executor.execute({ tool: 'Count', input: 'flaky' }, doc)).toMatchObject({ ok: true, value: 'FLAKY' });
    expect(await executor.execute({ tool: 'Count', input: 'a' }, doc)).toMatchObject({ ok: true, value: 'A', ms: 0 });
    expect(runs).toEqual(['a', 'a', 'flaky', 'flaky']); // d1 "a" once, d2 "a" once, flaky twice
    const uncached = new ToolExecutor(new ToolRegistry([tool]), { cacheSize: 0 });
    runs.length = 0;
    await uncached.executeAll([{ call: { tool: 'Count', input: 'b' }, doc }, { call: { tool: 'Count', input: 'b' }, doc }]);
    expect(runs).toEqual(['b', 'b']);
  });

  it('bounds concurrency and returns results in input order whatever the concurrency', async () => {
    const inputs = ['30', '5', '20', '1', '15', '25', '2', '10', '8', '12'];
    const run = async (concurrency: number) => {
      let inFlight = 0;
      let peak = 0;
      let started = 0;
      const held: (() => void)[] = [];
      // No clock: a call finishes only once the executor has as many in flight as it may (the pool full, or every
      // call started), and the last started finishes first — so the peak is the bound and results come back out of order.
      const tool = scripted('Slow', async (input) => {
        peak = Math.max(peak, ++inFlight);
        started++;
        await new Promise<void>((release) => {
          held.push(release);
          if (held.length === concurrency || started === inputs.length) for (const r of held.splice(0).reverse()) r();
        });
        inFlight--;
        return { ok: true, value: `done ${input}` };
      });
      const executor = new ToolExecutor(new ToolRegistry([tool]), { concurrency });
      const results = await executor.executeAll(inputs.map((input) => ({ call: { tool: 'Slow', input }, doc })));
      return { values: results.map((r) => (r.ok ? r.value : r.error)), peak };
    };
    const one = await run(1);
    const eight = await run(8);
    expect(one.peak).toBe(1);
    expect(eight.peak).toBe(8);
    expect(eight.values).toEqual(one.values);
    expect(one.values).toEqual(inputs.map((input) => `done ${input}`));
  });
});
