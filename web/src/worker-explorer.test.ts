/**
 * The explorer's two-pass scoring and its on-demand L_b, on the bundled model through onnxruntime-node (the worker's
 * code with Node's CausalLM): an analysis at τ_min 0.5 lowered to 0.1 by fillCallOnly stores what an analysis scored at
 * 0.1 from the start stores — the same L_b (float rounding of other batch shapes aside), controls and verdicts — and
 * the fill scores only the calls whose bound reaches the new τ_min. The user's own call is scored in full at any τ_min.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasCallOnly, usefulnessBound } from '../../pipeline/core/candidates.ts';
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import kb from '../../pipeline/data/kb.json' with { type: 'json' };
import type { KnowledgeBase } from '../../pipeline/core/tools/qa/qa.ts';
import { loadModel } from '../../pipeline/node/model/load-model.ts';
import type { Analysis, AnalyzeParams } from './analysis-types.ts';
import { browserParts, type BrowserParts } from './browser-parts.ts';
import { rejudge } from './rejudge.ts';
import { TOOL_SPECS } from './tool-specs.ts';
import { DEFAULT_TEXT } from './ui/explorer/state.ts';
import { analyzeText, fillCallOnly } from './worker-explorer.ts';

/** The τ_min the slider is moved down to, nats. */
const LOW = 0.1;
const ROOT = join(import.meta.dirname, '../..');
let lm: CausalLM & { release?(): Promise<void> };
let parts: BrowserParts;

/** The explorer's default page: its text, every tool, k 5, m 2, seed 1, the registry's worked example as own call. */
const own = TOOL_SPECS.flatMap((s) => (s.examples ?? []).map((e) => ({ tool: s.name, input: e.input, at: e.at, text: e.text }))).find((e) => e.text === DEFAULT_TEXT)!;
const params = (tauMin: number): AnalyzeParams => ({
  text: DEFAULT_TEXT, tools: TOOL_SPECS.map((s) => s.name), k: 5, m: 2, seed: 1, date: '2023-01-30',
  own: { tool: own.tool, input: own.input, at: own.at }, tauMin,
});
const quiet = () => {};
/** Every candidate's verdict at τ_f, with the control on and off. */
const verdicts = (a: Analysis, tauF: number) => [a.controlMargins, undefined].flatMap((controlMargins) =>
  rejudge(a, { tauS: 0, tauF, controlMargins }).map((d) => d.outcome.kind));

beforeAll(async () => {
  lm = await loadModel(join(ROOT, 'models/default'));
  parts = browserParts({ lm, resources: { kb: kb as unknown as KnowledgeBase }, specs: TOOL_SPECS });
}, 120_000);
afterAll(async () => {
  await lm?.release?.();
});

describe("the explorer's two-pass scoring", () => {
  it('lowers τ_min on demand to what a full scoring at the lower τ_min stores, scoring only the missing L_b', async () => {
    const twoPass = await analyzeText(parts, params(0.5), quiet);
    const full = await analyzeText(parts, params(LOW), quiet);
    expect(twoPass.tauMin).toBe(0.5);
    expect(full.candidates.length).toBe(twoPass.candidates.length);
    const scored = twoPass.candidates.filter((c) => c.losses);
    const skipped = scored.filter((c) => !hasCallOnly(c.losses!));
    // The default text: most calls' L_a − L_c is below 0.5 (46 of 50 on models/default), so most L_b are skipped; some
    // of those reach LOW, some do not.
    expect(skipped.length).toBeGreaterThan(scored.length / 2);
    const wanted = skipped.filter((c) => usefulnessBound(c.losses!) >= LOW).length;
    expect(wanted).toBeGreaterThan(0);
    expect(wanted).toBeLessThan(skipped.length);
    // At and above τ_min, nothing is undecided, and the verdicts are the full scoring's.
    for (const tauF of [0.5, 1, 2]) expect(verdicts(twoPass, tauF)).toEqual(verdicts(full, tauF));
    expect(verdicts(twoPass, LOW)).toContain('needs_call_only');
    // The user's own call is scored in full though its bound is below τ_min: L_b and the control, as at LOW.
    const ownCall = twoPass.candidates[twoPass.ownIndex];
    expect(ownCall.input).toBe(own.input);
    expect(usefulnessBound(ownCall.losses!)).toBeLessThan(0.5);
    expect(Math.abs(ownCall.losses!.callOnly! - full.candidates[full.ownIndex].losses!.callOnly!)).toBeLessThan(1e-4);
    expect(ownCall.control?.distractor).toBe(full.candidates[full.ownIndex].control?.distractor);
    expect(ownCall.control).toBeDefined();

    const fill = await fillCallOnly(parts, { analysis: twoPass, tauMin: LOW }, quiet);
    expect(fill.callOnlyScored).toBe(wanted);
    // Some of them now reach τ_min: the control measured them, as the full scoring did.
    expect(fill.updates.filter((u) => u.candidate.control).length).toBeGreaterThan(0);
    const filled: Analysis = { ...twoPass, tauMin: fill.tauMin, candidates: [...twoPass.candidates] };
    for (const u of fill.updates) filled.candidates[u.index] = u.candidate;
    // The same numbers a full scoring at LOW stores: L_a and L_c unchanged, L_b within float rounding, the same
    // controls (scored for the calls that now reach τ_min), outcomes and bounds.
    filled.candidates.forEach((c, i) => {
      const f = full.candidates[i];
      expect(c.losses?.callOnly === undefined, `candidate ${i}: L_b present`).toBe(f.losses?.callOnly === undefined);
      if (c.losses?.callOnly !== undefined) expect(Math.abs(c.losses.callOnly - f.losses!.callOnly!)).toBeLessThan(1e-4);
      expect(c.losses?.noCall).toBe(twoPass.candidates[i].losses?.noCall);
      expect(c.control?.distractor).toBe(f.control?.distractor);
      if (c.control) expect(Math.abs(c.control.margin - f.control!.margin)).toBeLessThan(1e-3);
      expect(c.outcome).toEqual(f.outcome);
      expect(c.usefulnessAtMost === undefined).toBe(f.usefulnessAtMost === undefined);
    });
    for (const tauF of [LOW, 0.2, 0.3, 0.5, 1]) expect(verdicts(filled, tauF)).toEqual(verdicts(full, tauF));
    expect(verdicts(filled, LOW)).not.toContain('needs_call_only');
    expect(verdicts(filled, 0)).toContain('needs_call_only');
    // Nothing left to score at LOW: a second fill scores no L_b.
    expect((await fillCallOnly(parts, { analysis: filled, tauMin: LOW }, quiet)).callOnlyScored).toBe(0);
  }, 300_000);
});
