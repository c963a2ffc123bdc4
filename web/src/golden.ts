/**
 * Golden cases: the three losses for fixed (text, call, result, position), computed with the pipeline's own scorer
 * (pipeline/core/scoring.ts). The same function runs in Node on onnxruntime-node (the fixture, web/e2e) and in the
 * browser worker on onnxruntime-web; the test compares the two within 1e-3 nats.
 */
import { formatCall } from '../../pipeline/core/call-syntax.ts';
import type { CausalLM } from '../../pipeline/core/lm.ts';
import { PAPER_WEIGHTS } from '../../pipeline/core/losses.ts';
import { makeWindow, scorePositions } from '../../pipeline/core/scoring.ts';
import type { GoldenCase, GoldenResult } from './analysis-types.ts';

/** Text tokens of context before the position (the CLI's default contextTokens is larger; any fixed value works). */
export const GOLDEN_CONTEXT_TOKENS = 64;

export const GOLDEN_CASES: GoldenCase[] = [
  { text: 'Out of 1400 participants, 400 (or 29%) passed the test.', tool: 'Calculator', input: '400 / 1400', result: '0.29', quoted: false, at: 33 },
  { text: 'The capital of Pennsylvania is Harrisburg, on the Susquehanna.', tool: 'QA', input: 'What is the capital of Pennsylvania?', result: 'Harrisburg', quoted: true, at: 30 },
  { text: 'Today is the first Friday of the year, and the shops are open.', tool: 'Calendar', input: '', result: 'Today is Friday, January 6, 2023.', quoted: false, at: 8 },
  { text: 'The budget grew from 3,200 to 4,800 dollars, a rise of 1,600 dollars.', tool: 'Calculator', input: '4800 - 3200', result: '1600', quoted: false, at: 54 },
];

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
