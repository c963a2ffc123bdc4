/**
 * Write a computed number the way the surrounding text writes numbers (issue 10): a result only helps the LM
 * predict "$82,487" if it is written "$82,487", not "82487.3" — the tokens differ. The style is read from the text
 * *before* the call: the operands as the text wrote them (currency sign, unit or scale word after them, decimals)
 * and whether the text groups thousands with commas.
 */

/** A number as written in the text, with what decorates it. */
export interface WrittenNumber {
  /** Offset of the first character (the "$" when there is one). */
  start: number;
  text: string;
  value: number;
  /** Digits after the decimal point, as written. */
  decimals: number;
  /** "1,253,948" groups thousands; "1253948" does not; null when the number is under 1,000 (no evidence). */
  grouped: boolean | null;
  /** "$" when the number is written after a dollar sign. */
  currency: string;
  /** What follows: "%", " per cent", " million", " sq km", " cents"… ('' for none). */
  unit: string;
}

const UNIT = String.raw`%|\s(?:per cent|percent|thousand|million|billion|trillion|sq km|square miles|km|miles|acres|tons|cents|dollars|pounds|years|men|persons)\b`;
const NUMBER = new RegExp(String.raw`(\$\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(${UNIT})?`, 'g');

/** Every number in the text, in order, with its decoration. Years (1000–2099 written without a comma) are kept. */
export function writtenNumbers(text: string): WrittenNumber[] {
  const out: WrittenNumber[] = [];
  for (const m of text.matchAll(NUMBER)) {
    const before = text[m.index - 1];
    if (before !== undefined && /[\w.]/.test(before)) continue; // inside a word or a longer number
    const [, currency = '', int, frac = '', unit = ''] = m;
    const value = Number(int.replace(/,/g, '') + frac);
    const digits = int.replace(/,/g, '');
    out.push({
      start: m.index,
      text: m[0],
      value,
      decimals: frac ? frac.length - 1 : 0,
      grouped: digits.length < 4 ? null : int.includes(','),
      currency: currency.trim(),
      unit,
    });
  }
  return out;
}

const isYear = (n: WrittenNumber) => n.grouped === false && n.decimals === 0 && n.value >= 1000 && n.value < 2100 && !n.currency && !n.unit;

export interface NumberStyle {
  /** Group thousands with commas. */
  grouped: boolean;
  /** Digits after the point (trailing zeros kept, as a ledger writes "$172,314.65"). */
  decimals: number;
  currency: string;
  unit: string;
}

/**
 * The style for a result computed from `operands` (their values, in the order of the expression), read from
 * `prefix`: each operand is looked up as written (its latest occurrence); the result takes their common currency
 * and unit, their largest number of decimals (`maxDecimals` caps it: 2, the paper's rounding), and thousands
 * grouping when the text groups (any number ≥ 1,000 written with commas, years aside).
 */
export function styleFor(operands: readonly number[], prefix: string, maxDecimals = 2): NumberStyle {
  const written = writtenNumbers(prefix);
  const found = operands.map((v) => [...written].reverse().find((n) => n.value === v));
  const grouping = written.filter((n) => n.grouped !== null && !isYear(n));
  const grouped = grouping.length > 0 && grouping.some((n) => n.grouped);
  const all = found.every((n) => n !== undefined) ? (found as WrittenNumber[]) : [];
  const common = (key: 'currency' | 'unit') => (all.length > 0 && all.every((n) => n[key] === all[0][key]) ? all[0][key] : '');
  const decimals = Math.min(maxDecimals, Math.max(0, ...all.map((n) => n.decimals)));
  return { grouped, decimals, currency: common('currency'), unit: common('unit') };
}

/** `writeNumber(82487.3, {grouped: true, decimals: 0, currency: '$', unit: ''})` → "$82,487". */
export function writeNumber(value: number, style: NumberStyle): string {
  const fixed = Math.abs(value).toFixed(style.decimals);
  const [int, frac] = fixed.split('.');
  const body = (style.grouped ? groupThousands(int) : int) + (frac ? `.${frac}` : '');
  return `${value < 0 && Number(fixed) !== 0 ? '-' : ''}${style.currency}${body}${style.unit}`;
}

/**
 * "1234567" → "1,234,567". A loop, not `/\B(?=(\d{3})+(?!\d))/g`, whose look-ahead rescans the rest of the digits
 * from every position (quadratic; text-work.test.ts checks every pattern of core/text/ for that).
 */
function groupThousands(int: string): string {
  if (!/^\d+$/.test(int)) return int; // toFixed's exponent form ("1e+21") has no groups
  const head = int.length % 3 || 3;
  let out = int.slice(0, head);
  for (let i = head; i < int.length; i += 3) out += `,${int.slice(i, i + 3)}`;
  return out;
}
