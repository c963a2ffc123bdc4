import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { canStillParse, formatCall, parseCall } from './call-syntax.ts';
import { readSample } from './sampling/sample-calls.ts';

describe('call syntax', () => {
  it('formats the paper examples', () => {
    expect(formatCall({ tool: 'Calculator', input: '400 / 1400' }, { quoted: false, result: '0.29' })).toBe(
      '[Calculator(400 / 1400) -> 0.29]',
    );
    expect(formatCall({ tool: 'QA', input: 'Who wrote Hamlet?' }, { quoted: true })).toBe('[QA("Who wrote Hamlet?")]');
    expect(formatCall({ tool: 'Calendar', input: '' }, { quoted: false, result: '' })).toBe('[Calendar() -> ]');
  });

  it('parses a sampled call without brackets', () => {
    expect(parseCall('Calculator((2 + 3) * 4)')).toEqual({ ok: true, call: { tool: 'Calculator', input: '(2 + 3) * 4' } });
    expect(parseCall('QA("What is the capital of Pennsylvania?") -> Harrisburg')).toEqual({
      ok: true,
      call: { tool: 'QA', input: 'What is the capital of Pennsylvania?', result: 'Harrisburg' },
    });
  });

  it('rejects malformed calls with a reason', () => {
    expect(parseCall('Calculator(1 + 2')).toMatchObject({ ok: false });
    expect(parseCall('(1 + 2)')).toMatchObject({ ok: false, error: 'no tool name' });
    expect(parseCall('QA("open) -> x')).toMatchObject({ ok: false });
    expect(parseCall('[Calculator(1) -> 2')).toMatchObject({ ok: false });
    expect(parseCall('Calculator(1) junk')).toMatchObject({ ok: false });
  });

  it('keeps results with "]", "->", "[" and newlines inside the brackets', () => {
    const hostile = 'a] -> b [c\nd\\e"f)';
    const text = formatCall({ tool: 'QA', input: hostile }, { quoted: true, result: hostile });
    // The only unescaped "]" is the closing one.
    expect(text.replace(/\\./gs, '').indexOf(']')).toBe(text.replace(/\\./gs, '').length - 1);
    expect(text).not.toContain('\n');
    expect((text.match(/(?<!\\)->/g) ?? []).length).toBe(1);
    expect(parseCall(text)).toEqual({ ok: true, call: { tool: 'QA', input: hostile, result: hostile } });
  });

  it('round-trips any input and result (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('Calculator', 'QA', 'Calendar', 'Translate'),
        fc.boolean(),
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.option(fc.string({ unit: 'binary', maxLength: 40 })),
        (tool, quoted, input, result) => {
          const res = result ?? undefined;
          const text = formatCall({ tool, input }, { quoted, result: res });
          // Exactly one unescaped "]" — the closing one — and no raw newline.
          expect(text.replace(/\\./gs, '').match(/]/g)?.length).toBe(1);
          expect(text).not.toMatch(/[\n\r]/);
          const parsed = parseCall(text);
          expect(parsed.ok).toBe(true);
          if (!parsed.ok) return;
          expect(parsed.call.tool).toBe(tool);
          expect(parsed.call.input).toBe(input);
          // Trailing whitespace of a result is not significant in call text.
          expect(parsed.call.result).toBe(res === undefined ? undefined : res.replace(/\s+$/, ''));
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('canStillParse', () => {
  it('never gives up on a text that parses, closed or read up to its arrow', () => {
    const texts = ['Calculator(1 + 2)', ' QA("Where is Lima?")', 'Calendar()', 'Calc(3) -> 4', 'MT("hola") -> hello '];
    for (const text of texts) for (let i = 0; i <= text.length; i++) expect(canStillParse(text.slice(0, i))).toBe(true);
  });

  it('gives up only where no continuation parses: a prefix it rejects leaves every sample with that start unparsed', () => {
    expect(canStillParse('the answer')).toBe(false);
    expect(canStillParse('Calc (1)')).toBe(false);
    expect(canStillParse('[Calc(1)')).toBe(false);
    expect(canStillParse('  Calc')).toBe(true);
    expect(canStillParse('Calc\uFFFD')).toBe(true);
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.boolean(), (head, tail, stopped) => {
        fc.pre(!canStillParse(head));
        expect(readSample(head + tail, stopped).call).toBeUndefined();
      }),
      { numRuns: 2000 },
    );
  });
});

