/**
 * The Calculator tool, whole: `[Calculator(400 / 1400) -> 0.29]`. The engine is calculate.ts (mathjs behind an
 * allowlist), the pre-filter prefilter.ts, the proposer proposer.ts.
 */
import { paperPrompt } from '../prompts.ts';
import { positionBefore } from '../../text/boundaries.ts';
import { numbersEqual } from '../../text/compare.ts';
import { clip } from '../../text/phrases.ts';
import { findQuantities } from './quantities.ts';
import type { ToolSpec } from '../spec.ts';
import { Calculator, MAX_EXPRESSION_LENGTH } from './calculate.ts';
import { calculatorPrefilter } from './prefilter.ts';
import { proposeCalculator } from './proposer.ts';
import { styleCalculatorResult } from './style.ts';

const NAME = 'Calculator';

/**
 * Constants a Calculator input may use without the prefix containing them: 100 for percentages
 * ("400 / 1400 * 100", "1400 * 29 / 100"). Any other number must appear in the prefix.
 */
export const CALCULATOR_CONSTANTS: readonly number[] = [100];

export const calculator: ToolSpec = {
  name: NAME,
  description:
    'Computes an arithmetic expression — adds (plus), subtracts (minus), multiplies (times), divides: numbers, + - * / ^, parentheses, sqrt/abs/round/floor/ceil/exp/log/log10, pi, e; result rounded to 2 decimals.',
  // What the tool retriever indexes beside the description (pipeline/core/retrieval/): the words people use for
  // arithmetic ("plus", "how many in all", "left"), which the description's symbols do not carry.
  documentation: {
    category: 'Arithmetic',
    syntax: ['12 + 30', '(40 - 15) * 3', '400 / 1400 * 100'],
    examples: ['a plus b', 'a minus b', 'a times b', 'a divided by b', 'the sum, difference, product or quotient of two numbers',
      'the total: how many in all, how many more, how many are left, how many each gets', 'a percent of an amount', 'half of an amount'],
    seeAlso: [],
  },
  parameters: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        description: 'an arithmetic expression, e.g. 400 / 1400',
        minLength: 1,
        maxLength: MAX_EXPRESSION_LENGTH,
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  argument: { syntax: 'raw', property: 'expression' },
  create: () => new Calculator(),
  styleResult: styleCalculatorResult,
  /** Numbers equal at the precision the expected one is written with. */
  sameResult: numbersEqual,
  prompt: paperPrompt(
    NAME,
    'Your task is to add calls to a Calculator API to a piece of text. The calls should help you get information ' +
      'required to complete the text. You can call the API by writing "[Calculator(expression)]" where "expression" ' +
      'is the expression to be computed.',
    {
      input: 'Out of 1400 participants, 400 (or 29%) passed the test.',
      output: 'Out of 1400 participants, 400 (or [Calculator(400 / 1400)] 29%) passed the test.',
    },
  ),
  // Paper App. A: Calculator τ_s 0, k 20, m 10, τ_f 0.5.
  thresholds: { tauS: 0, tauF: 0.5, k: 20, m: 10 },
  prefilter: calculatorPrefilter,
  /** Before each number that is not a year or part of a date ("… of [Calculator(…)] 27,000,000"). */
  positions: (text) => findQuantities(text).map((n) => positionBefore(text, n.start)),
  leaks: calculatorLeak,
  propose: (prefix) => proposeCalculator(prefix),
  examples: [
    { text: 'Out of 1400 participants, 400 (or 29%) passed the test.', at: 33, input: '400 / 1400', result: '0.29' },
    // The web explorer's default text and call.
    {
      text: 'Out of 2,400 participants, 600 (or 25%) passed the test and 1,800 failed. The capital of France is Paris.',
      at: 34,
      input: '600 / 2400',
      result: '0.25',
    },
    { text: 'The budget grew from 3,200 to 4,800 dollars, a rise of 1,600 dollars.', at: 54, input: '4800 - 3200', result: '1600' },
  ],
};

/** Every number in the input must appear in the prefix (as a value: "3,000,000" in the text covers "3000000"). */
function calculatorLeak(input: string, prefix: string): string | null {
  const known = new Set(numbersIn(prefix));
  const missing = [...new Set(numbersIn(input))].filter((v) => !known.has(v) && !CALCULATOR_CONSTANTS.includes(v));
  if (missing.length === 0) return null;
  return `Calculator input "${clip(input)}" uses ${missing.join(', ')}, not in the text before the call`;
}

/** Numeric values of the digit runs in `s`: thousands separators dropped, "$" and "%" ignored, signs ignored. */
function numbersIn(s: string): number[] {
  return [...s.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+/g)].map((m) => Number(m[0].replace(/,/g, '')));
}
