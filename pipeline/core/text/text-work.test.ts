import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { metered } from '../testing/work-meter.ts';
import { positionAfter, positionBefore } from './boundaries.ts';
import { foldText, numbersEqual, wordF1 } from './compare.ts';
import { fnv1a } from './hash.ts';
import { styleFor, writeNumber, writtenNumbers } from './number-style.ts';
import { containsPhrase, normalize } from './phrases.ts';
import { findDates, findNumbers, tail, tokenIndexer } from './spans.ts';
import { englishRatio, findForeignSpans } from '../tools/translate/foreign-spans.ts';
import { findEntities, nameWords } from '../tools/qa/entities.ts';
import { findQuantities } from '../tools/calculator/quantities.ts';

/**
 * The text helpers of core/text/ run on every document, whatever it holds, so their work must grow linearly with
 * the input: a quadratic helper turned one 1 MiB document into a stall of tens of minutes (issue 23: findEntities,
 * 100k letters before a digit took 25 s). Two deterministic checks, no clock:
 *  1. work-meter.ts counts the built-ins each helper calls; on adversarial strings that fast-check builds (a short
 *     unit repeated, or one character pumped between a prefix and a suffix) the count on 4n characters must stay
 *     within 5× the count on n (linear: ~4×; quadratic: ~16×).
 *  2. the backtracking inside one regex call, which no count of calls can see: every regular expression the helpers
 *     ran in (1) is run again on the longest string it got there, in V8 with a backtrack limit of 256 per character
 *     of that string in each exec (node/testing/regex-backtracks.mjs; V8 counts) — a linear pattern stays far below
 *     it (bounded repetitions like {2,120} included), a quadratic one on 6,000 characters needs ~3,000 per character.
 *     Not seen: a pattern whose every exec is linear but whose execs rescan the rest of the text (a look-ahead to the
 *     end from each match, like the `\B(?=(\d{3})+(?!\d))` number-style.ts had): (1) counts execs, not their length.
 */
const HELPERS: Record<string, (text: string) => unknown> = {
  findNumbers,
  findQuantities,
  findDates,
  findEntities,
  nameWords,
  findForeignSpans,
  englishRatio,
  tail: (t) => tail(t, 300),
  tokenIndexer: (t) => {
    const at = tokenIndexer(t);
    return [0, t.length >> 1, t.length].map(at);
  },
  writtenNumbers,
  styleFor: (t) => styleFor([3, 1500, 27.5], t),
  writeNumber: (t) => writeNumber(t.length * 1234.5, { grouped: true, decimals: 2, currency: '$', unit: '' }),
  foldText,
  numbersEqual: (t) => numbersEqual(t, t),
  wordF1: (t) => wordF1(t, t),
  normalize,
  containsPhrase: (t) => containsPhrase(t, 'de la'),
  positionBefore: (t) => positionBefore(t, t.length),
  positionAfter: (t) => positionAfter(t, 0),
  fnv1a,
};

/** Characters the helpers' patterns care about: letters, digits, separators, quotes, joiners, astral letters/digits. */
const ALPHABET = [...'aZé×. ,-\'’"“”«»$%()/:\n1', '0', 'de ', 'la ', 'Monday ', 'June ', '1999 ', '$1,000 ', ' percent', 'A. ', 'St. ', '\u{1D7CE}', '\u{1D400}'];
const unit = fc.array(fc.constantFrom(...ALPHABET), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
/** A document of about `n` characters made from an adversarial shape. */
type Shape = { kind: 'repeat'; unit: string } | { kind: 'pump'; prefix: string; pumped: string; suffix: string };
const shape: fc.Arbitrary<Shape> = fc.oneof(
  unit.map((u) => ({ kind: 'repeat' as const, unit: u })),
  fc.record({ prefix: unit, pumped: fc.constantFrom(...ALPHABET), suffix: unit }).map((s) => ({ kind: 'pump' as const, ...s })),
);
const build = (s: Shape, n: number) =>
  s.kind === 'repeat' ? s.unit.repeat(Math.ceil(n / s.unit.length)) : s.prefix + s.pumped.repeat(Math.ceil(n / s.pumped.length)) + s.suffix;

const N = 1500;
/** Each pattern the helpers ran on the 4n documents, with the longest string it got in each run. */
const patterns = new Map<string, { re: RegExp; inputs: string[] }>();
/** Backtracks allowed per character of a regex's input: linear patterns here stay well under it. */
const BACKTRACKS_PER_CHAR = 256;
const BACKTRACKS = resolve(import.meta.dirname, '../../node/testing/regex-backtracks.mjs');

describe('text helpers: work grows linearly with the input (counted, not timed)', () => {
  for (const [name, helper] of Object.entries(HELPERS)) {
    it(name, () => {
      fc.assert(
        fc.property(shape, (s) => {
          const small = metered(() => helper(build(s, N)));
          const large = metered(() => helper(build(s, 4 * N)));
          for (const [key, seen] of large.patterns) {
            const known = patterns.get(key) ?? { re: seen.re, inputs: [] };
            known.inputs.push(seen.longest);
            patterns.set(key, known);
          }
          // +64: a fixed cost (a few calls) on inputs where the helper finds nothing.
          expect(large.ops, `${name} on ${JSON.stringify(s)}: ${small.ops} ops at ${N} chars, ${large.ops} at ${4 * N}`).toBeLessThanOrEqual(5 * small.ops + 64);
        }),
        { numRuns: 40, seed: 23 },
      );
    });
  }

  it('the meter sees a quadratic loop (the overlap check findDates had)', () => {
    const quadratic = (t: string) => {
      const taken: { start: number; end: number }[] = [];
      for (const m of t.matchAll(/\d{4}/g)) if (!taken.some((s) => m.index < s.end && s.start < m.index + 4)) taken.push({ start: m.index, end: m.index + 4 });
      return taken;
    };
    const small = metered(() => quadratic('1999 '.repeat(N / 5))).ops;
    const large = metered(() => quadratic('1999 '.repeat((4 * N) / 5))).ops;
    expect(large).toBeGreaterThan(10 * small);
  });
});

describe('every pattern the text helpers run backtracks linearly (counted by V8)', () => {
  const overLimit = (list: { key: string; source: string; flags: string; inputs: string[] }[]) => {
    // --no-regexp-optimization: V8's optimised greedy loops step back without counting a backtrack.
    const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--no-regexp-optimization', BACKTRACKS], {
      input: JSON.stringify({ patterns: list, perChar: BACKTRACKS_PER_CHAR }),
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    expect(child.stderr).toBe('');
    return JSON.parse(child.stdout) as { key: string; length: number }[];
  };

  it('none goes over 256 backtracks per character on its longest input', () => {
    expect(patterns.size).toBeGreaterThan(30); // the runs above reached the helpers' patterns
    const list = [...patterns].map(([key, { re, inputs }]) => ({ key, source: re.source, flags: re.flags, inputs: [...new Set(inputs)] }));
    expect(overLimit(list)).toEqual([]);
  });

  it('the count catches the patterns the fixes replaced', () => {
    const attack = 'a'.repeat(6000) + '1';
    const over = overLimit([
      { key: 'findEntities words', source: "(?<![\\p{N}])[A-Za-z\\u00C0-\\u024F][A-Za-z\\u00C0-\\u024F'’.-]*(?![\\p{N}\\p{L}])", flags: 'gu', inputs: [attack] },
      { key: 'trailing dots', source: "[.'’-]+$", flags: '', inputs: [`a${"'".repeat(6000)}x`] },
    ]);
    expect(over.map((o) => o.key)).toEqual(['findEntities words', 'trailing dots']);
  });
});

describe('nameWords is the pattern it replaces', () => {
  const OLD = /(?<![\p{N}])[A-Za-z\u00C0-\u024F][A-Za-z\u00C0-\u024F'’.-]*(?![\p{N}\p{L}])/gu;
  it('same spans on random strings over the characters that matter', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...'aZé×÷ß.-\'’ 1٣', '\u{1D7CE}', '\u{1D400}', 'ab', 'Q.'), { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        const expected = [...text.matchAll(OLD)].map((m) => ({ start: m.index, end: m.index + m[0].length, text: m[0] }));
        expect(nameWords(text)).toEqual(expected);
      }),
      { numRuns: 3000, seed: 23 },
    );
  });
});
