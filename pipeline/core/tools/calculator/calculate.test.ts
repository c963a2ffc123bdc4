import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Calculator, formatNumber, loadCalculate, MAX_EXPRESSION_LENGTH, MAX_PAREN_DEPTH } from './calculate.ts';

const calculate = await loadCalculate();

const ok = (value: string) => ({ ok: true, value });

describe('Calculator: the paper notation', () => {
  // Each case: what it shows, then expressions and their answers.
  it.each([
    ['rounds to 2 decimals without trailing zeros', [['400 / 1400', '0.29'], ['18 + 12 * 3', '54'], ['1200 * 1', '1200'], ['3 / 2', '1.5'], ['-1 / 3', '-0.33']]],
    ['accepts thousands separators and unicode operators', [['1,400 / 7', '200'], ['1,234,567.5 - 0.5', '1234567'], ['6 × 7 ÷ 2 − 1', '20']]],
    ['accepts functions and constants', [['sqrt(16) + abs(-2) + round(2.4)', '8'], ['2 * pi', '6.28'], ['log(e)', '1'], ['2^10', '1024']]],
  ])('%s', (_shows, answers) => {
    for (const [expression, answer] of answers) expect(calculate(expression), expression).toEqual(ok(answer));
  });
  it('rounds half away from zero in decimal, not binary', () => {
    expect(formatNumber(0.285)).toEqual(ok('0.29'));
    expect(formatNumber(1.005)).toEqual(ok('1.01'));
    expect(formatNumber(-2.675)).toEqual(ok('-2.68'));
    expect(formatNumber(-0.001)).toEqual(ok('0'));
    expect(formatNumber(1e-7)).toEqual(ok('0'));
  });
  it('runs through the Tool interface', async () => {
    const tool = new Calculator();
    expect(await tool.run('18 + 12 * 3')).toEqual(ok('54'));
  });
});

describe('Calculator: rejected inputs (issue 5 §2)', () => {
  const rejects = (input: string, reason: RegExp) => {
    const result = calculate(input);
    expect(result.ok, input).toBe(false);
    if (!result.ok) expect(result.error).toMatch(reason);
  };
  it('function definitions, assignments, blocks', () => {
    rejects('f(x) = x^2', /functionassignment/);
    rejects('a = 1', /assignment/);
    rejects('1; 2', /block/);
  });
  it('import, evaluate, parse and other functions outside the allowlist', () => {
    rejects('import({})', /"import" not allowed/);
    rejects('evaluate("1+1")', /"evaluate" not allowed/);
    rejects('parse("1")', /"parse" not allowed/);
    rejects('cos(1)', /"cos" not allowed/);
    rejects('createUnit("x")', /"createUnit" not allowed/);
  });
  it('matrices, strings, booleans, units, symbols', () => {
    rejects('zeros(10000,10000)', /comma/);
    rejects('zeros(10000)', /"zeros" not allowed/);
    rejects('[1]', /array/);
    rejects('"abc"', /string literal/);
    rejects('true', /boolean literal/);
    rejects('5 cm to inch', /not allowed/);
    rejects('x + 1', /unknown name "x"/);
  });
  it('other operators: %, !, ranges, comparisons, conditionals, multi-argument calls', () => {
    rejects('50%', /percent/);
    rejects('3!', /"!"/);
    rejects('1:10', /range/);
    rejects('1 == 1', /"=="/);
    rejects('1 ? 2 : 3', /conditional/);
    rejects('log(8, 2)', /comma/);
    rejects('1,40', /comma/);
  });
  it('non-finite and non-real results', () => {
    rejects('1e308^1e308', /not finite/);
    rejects('10 / 0', /not finite/);
    rejects('0 / 0', /not finite/);
    rejects('sqrt(-1)', /not a real number/);
    rejects('1e20 * 10', /too large/);
    rejects('Infinity', /non-finite literal/);
  });
  // The length and depth checks run before mathjs parses: their own messages show which check refused.
  it('10k nested parentheses and 100k characters: rejected by the size checks, before parsing', () => {
    const nested = '('.repeat(10_000) + '1' + ')'.repeat(10_000);
    rejects(nested, /longer than/);
    rejects('1+'.repeat(50_000) + '1', /longer than/);
    const shortButDeep = '('.repeat(MAX_PAREN_DEPTH + 1) + '1' + ')'.repeat(MAX_PAREN_DEPTH + 1);
    expect(shortButDeep.length).toBeLessThanOrEqual(MAX_EXPRESSION_LENGTH);
    rejects(shortButDeep, /nested deeper/);
  });
  it('control characters and empty input', () => {
    rejects('1 +\n2', /control/);
    rejects('   ', /empty/);
  });
  it('too many terms', () => {
    rejects(Array.from({ length: 60 }, () => '1').join('+'), /more than 100 terms/);
  });
});

// ---- property tests: random expression trees --------------------------------------------------------------

/** An allowed expression with an independent JS reference value (NaN when JS itself says non-finite/non-real). */
type Expr = { text: string; value: number };

const number: fc.Arbitrary<Expr> = fc
  .oneof(fc.integer({ min: 0, max: 100_000 }), fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }))
  .map((n) => {
    // Plain decimal text (no exponent) so the string the calculator reads is the number the reference uses.
    const text = Number.isInteger(n) ? String(n) : n.toFixed(3);
    return { text, value: Number(text) };
  });
const constant: fc.Arbitrary<Expr> = fc.constantFrom({ text: 'pi', value: Math.PI }, { text: 'e', value: Math.E });

const REFERENCE: Record<string, (x: number) => number> = {
  sqrt: Math.sqrt,
  abs: Math.abs,
  round: (x) => Math.sign(x) * Math.round(Math.abs(x)), // mathjs rounds half away from zero
  floor: Math.floor,
  ceil: Math.ceil,
  exp: Math.exp,
  log: Math.log,
  log10: Math.log10,
};
const BINARY: Record<string, (a: number, b: number) => number> = {
  '+': (a, b) => a + b,
  '-': (a, b) => a - b,
  '*': (a, b) => a * b,
  '/': (a, b) => a / b,
  '^': (a, b) => a ** b,
};

const { expr: allowed } = fc.letrec<{ expr: Expr }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    constant,
    fc.tuple(tie('expr'), fc.constantFrom(...Object.keys(BINARY)), tie('expr')).map(([a, op, b]) => ({
      text: `(${a.text}) ${op} (${b.text})`,
      value: BINARY[op](a.value, b.value),
    })),
    tie('expr').map((a) => ({ text: `-(${a.text})`, value: -a.value })),
    fc.tuple(fc.constantFrom(...Object.keys(REFERENCE)), tie('expr')).map(([fn, a]) => ({
      text: `${fn}(${a.text})`,
      value: REFERENCE[fn](a.value),
    })),
  ),
}));

const CLEAN_ERRORS = /not finite|not a real number|too large|longer than|nested deeper|more than 100 terms/;

describe('Calculator: properties (fast-check)', () => {
  it('allowed trees evaluate to the reference value (±0.005) or give a clean error', () => {
    fc.assert(
      fc.property(allowed, ({ text, value }) => {
        const result = calculate(text);
        if (!result.ok) {
          expect(result.error).toMatch(CLEAN_ERRORS);
          return;
        }
        expect(result.value).toMatch(/^-?\d+(\.\d{1,2})?$/);
        expect(Number.isFinite(value)).toBe(true);
        expect(Math.abs(Number(result.value) - value)).toBeLessThanOrEqual(0.0051 + 1e-9 * Math.abs(value));
      }),
      { numRuns: 400, seed: 42 },
    );
  });

  const forbidden = fc.constantFrom(
    'x',
    'f(x) = 1',
    'import({})',
    'evaluate("1")',
    '[1]',
    '"s"',
    'a = 1',
    '1:2',
    '3!',
    'true',
    'zeros(2)',
    'cos(1)',
    '7 mod 2',
    '1 == 1',
    '1 ? 2 : 3',
    '{a: 1}',
    'max(1, 2)',
    '10%',
    '2 cm',
    'Infinity',
    'x.y',
  );
  it('a tree with any forbidden fragment is always rejected', () => {
    fc.assert(
      fc.property(allowed, forbidden, fc.boolean(), ({ text }, bad, before) => {
        const expression = before ? `${bad} * (${text})` : `(${text}) + (${bad})`;
        expect(calculate(expression).ok).toBe(false);
      }),
      { numRuns: 400, seed: 7 },
    );
  });

  // Work is bounded by size, not timed: anything over MAX_EXPRESSION_LENGTH is refused before parsing.
  it('arbitrary strings never throw; over-long ones are refused by the length check', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2 * MAX_EXPRESSION_LENGTH, unit: 'binary' }), (text) => {
        const result = calculate(text);
        expect(typeof result.ok).toBe('boolean');
        if (text.length > MAX_EXPRESSION_LENGTH) expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/longer than/) });
      }),
      { numRuns: 500, seed: 3 },
    );
  });
});
