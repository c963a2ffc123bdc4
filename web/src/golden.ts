/**
 * Golden cases: the three losses for fixed (text, call, result, position), computed with the pipeline's own scorer
 * (pipeline/core/scoring/scoring.ts). The same function runs in Node on onnxruntime-node (the fixture, web/e2e) and in the
 * browser worker on onnxruntime-web; the test compares the two within 1e-3 nats.
 */
import { formatCall } from '../../pipeline/core/call-syntax.ts';
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import { defaultConfig } from '../../pipeline/core/default-config.ts';
import { scorePositions } from '../../pipeline/core/scoring/scoring.ts';
import { planWindow } from '../../pipeline/core/scoring/window.ts';
import { TOOL_SPECS } from '../../pipeline/core/tools/registry.ts';
import type { GoldenCase, GoldenResult } from './analysis-types.ts';


/** The tools' own worked examples (each spec's `examples`), in registry order. */
export const GOLDEN_CASES: GoldenCase[] = TOOL_SPECS.flatMap((spec) =>
  (spec.examples ?? []).map((e) => ({
    text: e.text,
    tool: spec.name,
    input: e.input,
    result: e.result,
    quoted: spec.argument.syntax === 'quoted',
    at: e.at,
  })),
);

/** Each case scored at the window the score stage would plan for it (window.ts, the run's default contextTokens). */
export async function scoreGolden(lm: CausalLM, cases: readonly GoldenCase[]): Promise<GoldenResult[]> {
  const { contextTokens } = defaultConfig();
  const scored = await scorePositions(
    lm,
    cases.map((c) => {
      const call = { tool: c.tool, input: c.input };
      const texts = { callOnly: formatCall(call, { quoted: c.quoted, result: '' }), withResult: formatCall(call, { quoted: c.quoted, result: c.result }) };
      const plan = planWindow(lm, c.text, c.at, [texts.withResult], { contextTokens });
      if (!plan) throw new Error(`golden case ${c.tool}(${c.input}): no room for text in a ${lm.maxLength}-token model`);
      return { window: plan.window, calls: [texts] };
    }),
  );
  return scored.map((s) => ({ losses: s.losses[0] }));
}
