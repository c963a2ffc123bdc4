/**
 * Whether two results state the same answer: the helpers behind each tool's `sameResult` (tools/spec.ts), with which
 * the data-quality evaluation (pipeline/eval/data-quality/match.ts) compares a kept call's result to a hand label.
 */

/** Lower case, accents off, every run of other characters one space: "Côte d'Ivoire" → "cote d ivoire". */
export const foldText = (s: string) => s.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, ' ').trim();

const SCALE: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/** The first number in a string as written ("$1,253,948.44", "1.6 billion", "29%"), and its decimals. */
function readNumber(s: string): { value: number; decimals: number; scale: number } | null {
  const m = /(-?\d[\d,]*(?:\.\d+)?)(?:\s*(thousand|million|billion|trillion))?/i.exec(s);
  if (!m) return null;
  const digits = m[1].replace(/,/g, '');
  const scale = m[2] ? SCALE[m[2].toLowerCase()] : 1;
  const decimals = digits.includes('.') ? digits.length - digits.indexOf('.') - 1 : 0;
  return { value: Number(digits) * scale, decimals, scale };
}

/** The first numbers of both are equal at the precision `expected` is written with ("0.29" and "0.2857"). */
export function numbersEqual(result: string, expected: string): boolean {
  const want = readNumber(expected);
  const got = readNumber(result);
  if (!want || !got) return false;
  const unit = want.scale * 10 ** -want.decimals;
  return Math.round(got.value / unit) === Math.round(want.value / unit);
}

/** Word-level F1 of two strings after `foldText` (0 when either has no word). */
export function wordF1(a: string, b: string): number {
  const words = (s: string) => foldText(s).split(' ').filter(Boolean);
  const x = words(a);
  const y = words(b);
  if (x.length === 0 || y.length === 0) return 0;
  // Each word of y matches at most one of x: a multiset intersection, counted in one pass over each.
  const pool = new Map<string, number>();
  for (const w of y) pool.set(w, (pool.get(w) ?? 0) + 1);
  let common = 0;
  for (const w of x) {
    const left = pool.get(w) ?? 0;
    if (left > 0) {
      common++;
      pool.set(w, left - 1);
    }
  }
  return common === 0 ? 0 : (2 * common) / (x.length + y.length);
}
