import { describe, expect, it } from 'vitest';
import { styleFor, writeNumber, writtenNumbers } from './number-style.ts';

describe('numbers written as the text writes them', () => {
  it('reads currency, grouping, decimals and units', () => {
    const ns = writtenNumbers('stamps $343,697 and fees $261,209.70; 29% of 1857 men; area 27,830 sq km; 3.5 billion');
    expect(ns.map((n) => [n.value, n.currency, n.grouped, n.decimals, n.unit])).toEqual([
      [343697, '$', true, 0, ''],
      [261209.7, '$', true, 2, ''],
      [29, '', null, 0, '%'],
      [1857, '', false, 0, ' men'],
      [27830, '', true, 0, ' sq km'],
      [3.5, '', null, 1, ' billion'],
    ]);
  });

  it('writes a difference of dollar amounts as the ledger does', () => {
    const prefix = 'The stamps amounted to $343,697. The fees amounted to $261,209.70, leaving a balance of';
    const style = styleFor([343697, 261209.7], prefix);
    expect(style).toEqual({ grouped: true, decimals: 2, currency: '$', unit: '' });
    expect(writeNumber(343697 - 261209.7, style)).toBe('$82,487.30');
  });

  it('keeps units and plain integers; years are no evidence of ungrouped thousands', () => {
    const prefix = 'In 1857 there were 1,725 offices established and 704 discontinued, leaving';
    expect(writeNumber(1725 - 704, styleFor([1725, 704], prefix))).toBe('1,021');
    const area = 'Area: total: 27,830 sq km; land: 25,680 sq km; water:';
    expect(writeNumber(27830 - 25680, styleFor([27830, 25680], area))).toBe('2,150 sq km');
    expect(writeNumber(170 - 73, styleFor([170, 73], 'of this total 170 were on reservations, of which 73'))).toBe('97');
    expect(writeNumber(12.5 + 3, styleFor([12.5, 3], 'rose from 12.5 by 3 to'))).toBe('15.5');
    expect(writeNumber(0.666, { grouped: false, decimals: 2, currency: '', unit: '' })).toBe('0.67');
  });
});
