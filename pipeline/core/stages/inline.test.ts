import { describe, expect, it } from 'vitest';
import type { Candidate } from '../candidates.ts';
import { inlineCalls, inlinedAtEachPosition } from './inline.ts';

const kept = (at: number, result: string, usefulness: number): Candidate => ({
  docId: 'd', tool: 'Calculator', positionTool: 'Calculator', input: '1 + 2', at, proposer: 'programmatic', result,
  losses: { noCall: 2, callOnly: 2, withResult: 2 - usefulness }, usefulness, outcome: { kind: 'kept' },
});
const format = (c: Candidate) => `[Calculator(${c.input}) -> ${c.result}]`;

describe('inlineCalls', () => {
  it('inlines the most useful call per position, at its offset', () => {
    const text = 'One and two make 3.';
    const out = inlineCalls(text, [kept(16, '3', 1), kept(16, '4', 0.5)], format);
    expect(out.text).toBe('One and two make [Calculator(1 + 2) -> 3] 3.');
    expect(out.calls).toMatchObject([{ at: 16, inlinedAt: 16, result: '3' }]);
  });

  it('writes the text\'s own brackets as parentheses, so "[" only opens a call', () => {
    const text = 'Thank you. [Laughter] One and two [sic] make 3. See [QA("x") -> y] here.';
    const at = text.indexOf(' 3.');
    const out = inlineCalls(text, [kept(at, '3', 1)], format);
    expect(out.text).toBe('Thank you. (Laughter) One and two (sic) make [Calculator(1 + 2) -> 3] 3. See (QA("x") -> y) here.');
    expect(out.text.match(/\[/g)).toHaveLength(1);
  });

  it('one call per position: the most useful; on a tie the first proposed; the rest stay kept but not inlined', () => {
    const a = kept(5, 'a', 1);
    const b = kept(5, 'b', 2);
    const c = kept(9, 'c', 1);
    const d = kept(9, 'd', 1);
    const e = kept(2, 'e', 0.5);
    expect(inlinedAtEachPosition([a, b, c, d, e])).toEqual([e, b, c]);
  });
});
