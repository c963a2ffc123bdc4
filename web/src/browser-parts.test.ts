import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import { RUN_DEFAULTS } from '../../pipeline/core/run-defaults.ts';
import { planConfig } from '../../pipeline/core/run-plan.ts';
import { adderTool } from '../../pipeline/core/testing/adder-tool.ts';
import { browserParts } from './browser-parts.ts';

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
