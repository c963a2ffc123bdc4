import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import { RUN_DEFAULTS } from '../../pipeline/core/run-defaults.ts';
import { planConfig } from '../../pipeline/core/run-plan.ts';
import { adderTool } from '../../pipeline/core/testing/adder-tool.ts';
import { browserParts, onFirstUse } from './browser-parts.ts';

afterEach(() => void vi.useRealTimers());

describe('the explorer\'s tool timeout', () => {
  it('is the CLI\'s, read from the one default (RUN_DEFAULTS.toolTimeoutMs): a hung tool is still waited for at 5 s', async () => {
    vi.useFakeTimers();
    const hang = adderTool({ name: 'Hang', create: () => ({ run: () => new Promise(() => {}) }) });
    const parts = browserParts({ lm: {} as CausalLM, resources: {}, specs: [hang] });
    let settled = false;
    const results = parts.execute([{ call: { tool: 'Hang', input: '1 + 1' }, doc: { id: 'd', text: 'x' } }]);
    void results.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(5_001);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(RUN_DEFAULTS.toolTimeoutMs);
    expect((await results)[0]).toMatchObject({ ok: false, error: `timed out after ${RUN_DEFAULTS.toolTimeoutMs} ms` });
    // The CLI without --tool-timeout: the same number.
    expect(planConfig({ seed: 0, batchSize: 16, concurrency: 4, lmProposals: true }).toolTimeoutMs).toBe(RUN_DEFAULTS.toolTimeoutMs);
  });
});

describe('onFirstUse: a tool\'s resources fetched when its first call needs them', () => {
  /** A tool that reads resources.base and adds it to its input; `fetches` counts the loader's calls. */
  function baseTool(fail: { next: boolean }) {
    const fetches = { n: 0 };
    const spec = onFirstUse(
      adderTool({ name: 'AddBase', create: (r) => ({ run: async (input: string) => ({ ok: true, value: String(Number(input) + (r.base as number)) }) }) }),
      async () => {
        fetches.n++;
        if (fail.next) { fail.next = false; throw new Error('network down'); }
        return { base: 100 };
      },
    );
    return { spec, fetches };
  }
  const call = (input: string) => ({ call: { tool: 'AddBase', input }, doc: { id: 'd', text: 'x' } });

  it('fetches nothing when the parts are made, once at the first call, and never again', async () => {
    const { spec, fetches } = baseTool({ next: false });
    const parts = browserParts({ lm: {} as CausalLM, resources: {}, specs: [spec] });
    expect(fetches.n).toBe(0);
    expect((await parts.execute([call('1'), call('2')])).map((r) => r.ok && r.value)).toEqual(['101', '102']);
    expect((await parts.execute([call('3')]))[0]).toMatchObject({ ok: true, value: '103' });
    expect(fetches.n).toBe(1);
  });

  it('a failed fetch is that call\'s error, and the next call fetches again', async () => {
    const { spec, fetches } = baseTool({ next: true });
    const parts = browserParts({ lm: {} as CausalLM, resources: {}, specs: [spec] });
    expect((await parts.execute([call('1')]))[0]).toMatchObject({ ok: false, error: 'AddBase failed: network down' });
    expect((await parts.execute([call('1')]))[0]).toMatchObject({ ok: true, value: '101' });
    expect(fetches.n).toBe(2);
  });
});
