import { describe, expect, it } from 'vitest';
import { styleCalculatorResult } from './style.ts';

describe('Calculator results written as the text writes numbers', () => {
  it('a difference of dollar amounts, a difference of areas, a count', () => {
    expect(styleCalculatorResult('82487.3', '343697 - 261209.70', 'stamps $343,697; fees $261,209.70, leaving')).toBe('$82,487.30');
    expect(styleCalculatorResult('2150', '27830 - 25680', 'Area: total: 27,830 sq km; land: 25,680 sq km; water:')).toBe('2,150 sq km');
    expect(styleCalculatorResult('1021', '1725 - 704', 'In 1857, 1,725 post-offices established and 704 discontinued, leaving')).toBe('1,021');
  });
  it('a percentage of an amount takes the amount\'s currency; a ratio only groups thousands', () => {
    expect(styleCalculatorResult('406', '1400 * 29 / 100', 'of $1,400, 29% went to')).toBe('$406');
    expect(styleCalculatorResult('0.29', '400 / 1400', 'spent $400 of $1,400, that is')).toBe('0.29');
    expect(styleCalculatorResult('27000000', '27 * 1000000', 'a total of $27,000,000 then')).toBe('27,000,000');
  });
  it('leaves a non-number alone', () => {
    expect(styleCalculatorResult('NaN', '0 / 0', '')).toBe('NaN');
  });
});
