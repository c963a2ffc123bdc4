import { describe, expect, it } from 'vitest';
import { readSample } from './sample-calls.ts';

describe('readSample: a sampled call ends at "]" or, unclosed, at "->"', () => {
  it('reads closed calls, with or without a result the model wrote', () => {
    expect(readSample('Calculator(2 + 3)', true).call).toEqual({ tool: 'Calculator', input: '2 + 3' });
    expect(readSample('QA("What is the capital of Peru?") -> Lima', true).call).toEqual({ tool: 'QA', input: 'What is the capital of Peru?' });
  });
  it('reads an unclosed sample up to its arrow (a finetuned model writes "-> result" past the token cap)', () => {
    const r = readSample('QA("What is the capital of United Arab Emirates?") -> Abu Dhabi, the capital and sec', false);
    expect(r.call).toEqual({ tool: 'QA', input: 'What is the capital of United Arab Emirates?' });
    expect(r.raw).toContain('Abu Dhabi');
  });
  it('drops unclosed samples without an arrow, and reports parse errors', () => {
    expect(readSample('QA("What is the capital of', false)).toEqual({ raw: 'QA("What is the capital of', rejected: { kind: 'unclosed_call' } });
    expect(readSample('QA("What is -> x', false).rejected?.kind).toBe('parse_error');
    expect(readSample('not a call', true).rejected?.kind).toBe('parse_error');
  });
});
