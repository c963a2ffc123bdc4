import { describe, expect, it } from 'vitest';
import { scriptFlag } from './script-flag.ts';

describe('scriptFlag', () => {
  const args = ['--docs', '8', '--quiet', '--model=models/x', 'positional', '--docs', '12'];
  it('reads --name value and --name=value, the last occurrence winning', () => {
    expect(scriptFlag('docs', '1', args)).toBe('12');
    expect(scriptFlag('model', 'm', args)).toBe('models/x');
  });
  it('falls back when the flag is absent or given without a value', () => {
    expect(scriptFlag('rounds', '3', args)).toBe('3');
    expect(scriptFlag('quiet', 'no', args)).toBe('no');
  });
});
