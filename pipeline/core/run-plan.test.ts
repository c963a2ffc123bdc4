import { describe, expect, it } from 'vitest';
import { defaultConfig } from './default-config.ts';
import { RUN_DEFAULTS } from './run-defaults.ts';
import { freezePlan, planConfig, withVerdicts } from './run-plan.ts';
import { adderTool } from './testing/adder-tool.ts';

const flags = { seed: 0, batchSize: 16, concurrency: 4, lmProposals: true };

describe('planConfig: flags and the defaults table → a validated config', () => {
  it('with no flags set is defaultConfig, whose values are the table\'s', () => {
    expect(planConfig(flags)).toEqual(defaultConfig());
    expect(JSON.stringify(planConfig(flags))).toBe(JSON.stringify(defaultConfig()));
    expect(defaultConfig()).toMatchObject({ toolTimeoutMs: RUN_DEFAULTS.toolTimeoutMs, topK: RUN_DEFAULTS.topK, maxDocTokens: RUN_DEFAULTS.maxDocTokens });
    expect(RUN_DEFAULTS.toolTimeoutMs).toBe(30_000);
  });

  it('applies the threshold flags to every tool, the MCP servers\' tools included, which join after the built-in ones', () => {
    const remote = adderTool({ name: 'Remote', thresholds: { tauS: 0.05, tauF: 1, k: 5, m: 5 } });
    const config = planConfig({ ...flags, tools: 'QA', tauF: 2, controlMargin: 0.25, mcp: ['server'] }, [remote]);
    expect(config.tools).toEqual(['QA', 'Remote']);
    expect(Object.keys(config.thresholds)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate', 'Remote']);
    expect(config.thresholds.Remote).toEqual({ tauS: 0.05, tauF: 2, k: 5, m: 5, controlMargin: 0.25 });
    expect(config.thresholds.Calculator).toMatchObject({ tauF: 2, controlMargin: 0.25 });
  });

  it('names the flag of a bad value, and refuses an empty tool list once the MCP servers gave none', () => {
    expect(() => planConfig({ ...flags, tauS: 2 })).toThrow(/τ_s must be in \[0, 1\] \(got 2\): pass --tau-s/);
    expect(() => planConfig({ ...flags, tools: 'Search' })).toThrow(/unknown tool "Search"/);
    expect(() => planConfig({ ...flags, tools: '', mcp: ['server'] })).not.toThrow();
    expect(() => planConfig({ ...flags, tools: '', mcp: ['server'] }, [])).toThrow(/no --mcp server gave a usable tool/);
  });

  it('records --tau-f-floor as a number: tau-f becomes the highest τ_f of the run; a non-number is refused', () => {
    expect(planConfig({ ...flags, tauFFloor: -5 }).tauFFloor).toBe(-5);
    expect(planConfig({ ...flags, tauFFloor: 'tau-f', tauF: 0.7 }).tauFFloor).toBe(0.7);
    const defaults = planConfig(flags);
    expect(planConfig({ ...flags, tauFFloor: 'tau-f' }).tauFFloor).toBe(Math.max(...Object.values(defaults.thresholds).map((t) => t.tauF)));
    expect('tauFFloor' in defaults).toBe(false);
    expect(() => planConfig({ ...flags, tauFFloor: Number.NaN })).toThrow(/τ_f floor must be a number of nats \(got NaN\): pass --tau-f-floor/);
  });

  it('records --call-placement only when given (a default run\'s config is unchanged), and refuses an unknown one', () => {
    expect(planConfig({ ...flags, callPlacement: 'inline' })).toEqual({ ...defaultConfig(), callPlacement: 'inline' });
    expect(planConfig({ ...flags, callPlacement: 'prefix' }).callPlacement).toBe('prefix');
    expect('callPlacement' in planConfig(flags)).toBe(false);
    expect(RUN_DEFAULTS.callPlacement).toBe('prefix');
    expect(() => planConfig({ ...flags, callPlacement: 'suffix' as 'inline' })).toThrow(/call placement must be prefix or inline \(got suffix\): pass --call-placement/);
  });
});

describe('the frozen plan', () => {
  const config = planConfig(flags);
  const verdicts = { lmContext: 'bare' as const, bareProbe: { QA: { samples: 25, parsed: 3 } }, samplingProbe: undefined };
  const plan = freezePlan({ model: 'm', versions: { a: '1' } }, { inputs: ['corpus.jsonl'], inputsDigest: 'abc', config: withVerdicts(config, verdicts) });

  it('holds the probe verdicts after the settings, as config.json lists them; the flags\' config is unchanged', () => {
    expect(plan.config.lmContext).toBe('bare');
    expect(Object.keys(plan.config).slice(-2)).toEqual(['toolTimeoutMs', 'bareProbe']);
    expect(Object.keys(plan)).toEqual(['model', 'versions', 'inputs', 'inputsDigest', 'maxDocs', 'config']);
    expect(config.lmContext).toBe('prompt');
    expect(config.bareProbe).toBeUndefined();
  });

  it('cannot be changed afterwards, at any depth', () => {
    expect(() => ((plan.config as { seed: number }).seed = 1)).toThrow(TypeError);
    expect(() => (plan.config.thresholds.QA.tauF = 9)).toThrow(TypeError);
    expect(() => plan.config.tools.push('Extra')).toThrow(TypeError);
    expect(() => (plan.config.bareProbe!.QA.parsed = 0)).toThrow(TypeError);
    expect(plan.config.thresholds.QA.tauF).toBe(1);
  });
});
