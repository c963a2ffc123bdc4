import { paperPrompt } from '../tools/prompts.ts';
import type { ToolSpec } from '../tools/spec.ts';

/**
 * A test tool that adds two numbers ("40 + 2" → "42") and fails on anything else; its schema allows digits, "+" and
 * spaces. What a test varies (name, thresholds, positions, proposer, leakage rule) is passed in.
 */
export function adderTool(overrides: Partial<ToolSpec> = {}): ToolSpec {
  const name = overrides.name ?? 'Add';
  return {
    name,
    description: 'adds',
    parameters: { type: 'object', properties: { sum: { type: 'string', maxLength: 20, pattern: '^[0-9 +]+$' } }, required: ['sum'], additionalProperties: false },
    argument: { syntax: 'raw', property: 'sum' },
    create: () => ({
      run: async (input) => {
        const m = /^(\d+) \+ (\d+)$/.exec(input);
        return m ? { ok: true, value: String(Number(m[1]) + Number(m[2])) } : { ok: false, error: 'not a sum' };
      },
    }),
    prompt: paperPrompt(name, 'Add numbers.', { input: '1 and 2 make 3', output: '1 and 2 make [Add(1 + 2)] 3' }),
    thresholds: { tauS: 1, tauF: 0.5, k: 0, m: 0 },
    ...overrides,
  };
}
