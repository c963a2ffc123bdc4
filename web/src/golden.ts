/**
 * Golden cases: the three losses for fixed (text, call, result, position), computed with the pipeline's own scorer
 * (pipeline/core/scoring.ts). The same function runs in Node on onnxruntime-node (the fixture, web/e2e) and in the
 * browser worker on onnxruntime-web; the test compares the two within 1e-3 nats.
 */
import { formatCall } from '../../pipeline/core/call-syntax.ts';
import type { CausalLM } from '../../pipeline/core/lm.ts';
import { PAPER_WEIGHTS } from '../../pipeline/core/losses.ts';
import { makeWindow, scorePositions } from '../../pipeline/core/scoring.ts';
import { TOOL_SPECS } from '../../pipeline/core/tools/registry.ts';
import type { GoldenCase, GoldenResult } from './analysis-types.ts';

/** Text tokens of context before the position (the CLI's default contextTokens is larger; any fixed value works). */
export const GOLDEN_CONTEXT_TOKENS = 64;

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

export async function scoreGolden(lm: CausalLM, cases: readonly GoldenCase[]): Promise<GoldenResult[]> {
  const scored = await scorePositions(
    lm,
    cases.map((c) => ({
      window: makeWindow(lm, c.text, c.at, { contextTokens: GOLDEN_CONTEXT_TOKENS, span: PAPER_WEIGHTS.length }),
      calls: [{
        callOnly: formatCall({ tool: c.tool, input: c.input }, { quoted: c.quoted, result: '' }),
        withResult: formatCall({ tool: c.tool, input: c.input }, { quoted: c.quoted, result: c.result }),
      }],
    })),
  );
  return scored.map((s) => ({ losses: s.losses[0] }));
}
