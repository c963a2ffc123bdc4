import { describe, expect, it } from 'vitest';
import { leaks as leaksOf } from './leakage.ts';
import { toolSpec } from '../tools/registry.ts';
import type { ToolCall } from '../tools/tool.ts';
import { ADAMS_1827, JOHNSON_1867, JOHNSON_1868, MEXICO_ANTHEM } from '../testing/excerpts.fixture.ts';

/** The guard as the guard stage applies it: the called tool's rule. */
const leaks = (call: ToolCall, prefix: string) => leaksOf(toolSpec(call.tool)!, call.input, prefix);

const before = (text: string, marker: string) => text.slice(0, text.indexOf(marker));

describe('leaks: Calculator', () => {
  it('rejects the public-repo bug "[Calculator(24*5) -> 120] 120/24=5": 24 and 5 come after the call', () => {
    const text = 'The answer: 120/24=5';
    const at = text.indexOf(' 120');
    expect(leaks({ tool: 'Calculator', input: '24*5' }, text.slice(0, at))).toBe(
      'Calculator input "24*5" uses 24, 5, not in the text before the call',
    );
    // At the end of the text the same numbers have been read: no leak.
    expect(leaks({ tool: 'Calculator', input: '24*5' }, text)).toBeNull();
  });

  it('accepts numbers written with "$" and thousands separators before the call', () => {
    const prefix = before(ADAMS_1827.text, ' $27,000,000');
    expect(leaks({ tool: 'Calculator', input: '21226000 + 5774000' }, prefix)).toBeNull();
    expect(leaks({ tool: 'Calculator', input: '21226000 + 5774000 + 27000000' }, prefix)).toBe(
      'Calculator input "21226000 + 5774000 + 27000000" uses 27000000, not in the text before the call',
    );
    expect(leaks({ tool: 'Calculator', input: '21226000 + 5774000' }, before(ADAMS_1827.text, ' $5,774,000'))).toMatch(
      /uses 5774000,/,
    );
  });

  it('allows 100 as the percentage constant and nothing else', () => {
    const prefix = before(JOHNSON_1867.text, ' $850,040');
    expect(leaks({ tool: 'Calculator', input: '743210 / 19978693 * 100' }, prefix)).toBeNull();
    expect(leaks({ tool: 'Calculator', input: '743210 * 12' }, prefix)).toMatch(/uses 12,/);
  });
});

describe('leaks: Translate and QA', () => {
  it('needs the span to translate before the call', () => {
    const call = { tool: 'Translate', input: 'Himno Nacional Mexicano' };
    expect(leaks(call, before(MEXICO_ANTHEM.text, ' (National'))).toBeNull();
    expect(leaks(call, before(MEXICO_ANTHEM.text, ' "Himno'))).toBe(
      'Translate input "Himno Nacional Mexicano" does not appear in the text before the call',
    );
    expect(leaks({ tool: 'Translate', input: '  ' }, MEXICO_ANTHEM.text)).toBe('Translate input is empty');
  });

  it("needs the question's subject before the call, as whole words", () => {
    const call = { tool: 'QA', input: 'What is the capital of Paraguay?' };
    expect(leaks(call, before(JOHNSON_1868.text, ' Asuncion'))).toBeNull();
    expect(leaks(call, before(JOHNSON_1868.text, ' Paraguay'))).toBe(
      'QA subject "Paraguay" does not appear in the text before the call',
    );
    expect(leaks({ tool: 'QA', input: 'What is the capital of Spain?' }, 'Nationality: noun: Spaniard(s)')).toMatch(
      /subject "Spain"/,
    );
  });

  it('checks the capitalised words of a question the QA tool cannot parse', () => {
    const prefix = before(JOHNSON_1868.text, ' Asuncion');
    expect(leaks({ tool: 'QA', input: 'Where was Washburn sent?' }, prefix)).toBeNull();
    expect(leaks({ tool: 'QA', input: 'Who met Washburn in Asuncion?' }, prefix)).toBe(
      'QA input names "Asuncion", not in the text before the call',
    );
  });

  it('never flags Calendar(), which takes no argument', () => {
    expect(leaks({ tool: 'Calendar', input: '' }, '')).toBeNull();
  });
});
