/**
 * A fifth tool for tests only, whole: `[UnitConvert(12 km to mi) -> 7.46 mi]` over a fixed table. It exists to show
 * that adding a tool is this folder plus one line in a registry (../registry.ts): the Node pipeline and the web app
 * run it without any other edit (pipeline/node/tools/fifth-tool.test.ts, web/e2e/fifth-tool.test.ts). It is not a production tool.
 */
import { paperPrompt } from '../../prompts.ts';
import { positionBefore } from '../../../text/boundaries.ts';
import type { ToolSpec } from '../../spec.ts';

const NAME = 'UnitConvert';

/** From each unit to its usual counterpart: 1 km = 0.621371 mi, … */
export const UNIT_TABLE: Readonly<Record<string, { to: string; factor: number }>> = {
  km: { to: 'mi', factor: 0.621371 },
  mi: { to: 'km', factor: 1.609344 },
  kg: { to: 'lb', factor: 2.204623 },
  lb: { to: 'kg', factor: 0.453592 },
  m: { to: 'ft', factor: 3.28084 },
  ft: { to: 'm', factor: 0.3048 },
};

/** "12 km", "1,200 ft", "3.5 kg": a number and a unit of the table. */
const QUANTITY = /\b(\d[\d,]*(?:\.\d+)?) ?(km|mi|kg|lb|m|ft)\b/g;

/** `12 km to mi` → `7.46 mi`; null for a pair the table does not hold. */
export function convert(input: string): string | null {
  const m = /^(\d+(?:\.\d+)?) ([a-z]+) to ([a-z]+)$/.exec(input);
  const row = m && UNIT_TABLE[m[2]];
  if (!m || !row || row.to !== m[3]) return null;
  return `${Math.round(Number(m[1]) * row.factor * 100) / 100} ${row.to}`;
}

export const unitConvert: ToolSpec = {
  name: NAME,
  description: 'Converts a length or a weight between metric and imperial units (km, mi, m, ft, kg, lb), e.g. 12 km to mi.',
  parameters: {
    type: 'object',
    properties: {
      conversion: {
        type: 'string',
        description: 'a number, its unit, "to" and the target unit, e.g. 12 km to mi',
        maxLength: 32,
        pattern: '^[0-9]+(\\.[0-9]+)? [a-z]+ to [a-z]+$',
      },
    },
    required: ['conversion'],
    additionalProperties: false,
  },
  argument: { syntax: 'raw', property: 'conversion' },
  create: () => ({
    run: async (input) => {
      const out = convert(input);
      return out === null ? { ok: false, error: `no conversion for "${input}"` } : { ok: true, value: out };
    },
  }),
  prompt: paperPrompt(
    NAME,
    'Your task is to add calls to a unit converter to a piece of text. You can call it by writing ' +
      '"[UnitConvert(12 km to mi)]" where "12 km" is the quantity and "mi" the unit wanted.',
    { input: 'The trail is 12 km (7.46 mi) long.', output: 'The trail is 12 km ([UnitConvert(12 km to mi)] 7.46 mi) long.' },
  ),
  thresholds: { tauS: 0.05, tauF: 1, k: 5, m: 5 },
  /** Before every quantity with a unit of the table. */
  positions: (text) => [...text.matchAll(QUANTITY)].map((q) => positionBefore(text, q.index)),
  /** The quantity converted must be written before the call (the target unit may come after it). */
  leaks: (input, prefix) => {
    const n = /^[\d.]+/.exec(input)?.[0] ?? '';
    return [...prefix.matchAll(QUANTITY)].some((q) => q[1].replace(/,/g, '') === n) ? null : `${n} is not a quantity before the call`;
  },
  /** The last quantity of the prefix, into its counterpart unit. */
  propose: (prefix) => {
    const last = [...prefix.matchAll(QUANTITY)].at(-1);
    return last ? [`${last[1].replace(/,/g, '')} ${last[2]} to ${UNIT_TABLE[last[2]].to}`] : [];
  },
  examples: [{ text: 'The trail is 12 km (7.46 mi) long and climbs 800 m.', at: 18, input: '12 km to mi', result: '7.46 mi' }],
};
