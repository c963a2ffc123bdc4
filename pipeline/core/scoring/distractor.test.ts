import { describe, expect, it } from 'vitest';
import { distractorFor } from './distractor.ts';
import { keepSampling, parseRate } from '../sampling/sampling-gate.ts';

describe('distractorFor', () => {
  it('keeps the form of a number and changes every digit', () => {
    expect(distractorFor('$82,487.30', [])).toBe('$37,932.85');
    expect(distractorFor('This year is 1867.', [])).toBe('This year is 6312.');
    expect(distractorFor('5', [])).toBe('9'); // no leading zero
  });
  it('takes another result of the same tool for a result without digits, or none', () => {
    expect(distractorFor('Accra', ['Accra', 'Kumasi', 'Accra'])).toBe('Kumasi');
    expect(distractorFor('Accra', ['Accra'])).toBeNull();
    expect(distractorFor('Port Louis', ['Louis'])).toBeNull(); // a part of the answer would still help
  });
});

describe('the sampling gate', () => {
  const gate = { minSamples: 100, minParseRate: 0.02 };
  it('samples until it has seen minSamples, then only while enough parse', () => {
    expect(keepSampling({ samples: 99, parsed: 0 }, gate)).toBe(true);
    expect(keepSampling({ samples: 100, parsed: 0 }, gate)).toBe(false);
    expect(keepSampling({ samples: 100, parsed: 2 }, gate)).toBe(true);
    expect(keepSampling({ samples: 5000, parsed: 0 }, null)).toBe(true); // --force-lm-sampling
  });
  it('reports the parse rate to 1e-4', () => {
    expect(parseRate({ samples: 3, parsed: 1 })).toBe(0.3333);
    expect(parseRate({ samples: 0, parsed: 0 })).toBe(0);
  });
});
