/**
 * A deterministic measure of the work a pure function does, for tests that bound work by input size instead of by
 * wall-clock time. While `metered(fn)` runs `fn` (synchronously), the built-ins that loops over text are made of are
 * wrapped and counted:
 *   - `RegExp.prototype.exec`: 1 per call. Every regex use goes through it (`test`, `matchAll`, `match`, `replace`,
 *     `split`, `search` all call `exec` once it is replaced — ECMAScript RegExpExec), so this is one count per match
 *     found or given up; the pattern and the longest string it ran on are recorded for a count of the backtracking
 *     inside (node/testing/regex-backtracks.mjs), which no count of calls can see.
 *   - Array `some every filter map find findIndex indexOf includes forEach reduce flatMap splice join`: the array's
 *     length (a scan of a whole list per element is how quadratic loops look in this code); `slice`: the copy's.
 *   - String `slice substring indexOf includes startsWith endsWith`: 1 + the length of a returned string.
 * Plain `for` loops over indices are not seen; the text helpers use these built-ins on every step.
 */

export interface Metered<T> {
  result: T;
  /** Counted operations (see above). */
  ops: number;
  /** Every regular expression `exec` ran, by `/source/flags`, with the longest string it ran on (its length and the string). */
  patterns: Map<string, { re: RegExp; longestInput: number; longest: string }>;
}

const ARRAY_SCANS = ['some', 'every', 'filter', 'map', 'find', 'findIndex', 'indexOf', 'includes', 'forEach', 'reduce', 'flatMap', 'splice', 'join'] as const;
const STRING_OPS = ['slice', 'substring', 'indexOf', 'includes', 'startsWith', 'endsWith'] as const;

export function metered<T>(fn: () => T): Metered<T> {
  let ops = 0;
  const patterns = new Map<string, { re: RegExp; longestInput: number; longest: string }>();
  const restore: (() => void)[] = [];
  const wrap = (proto: object, name: string, cost: (self: unknown, out: unknown) => number, record?: (self: RegExp, input: unknown) => void) => {
    const original = (proto as Record<string, (...a: unknown[]) => unknown>)[name];
    const wrapper = function (this: unknown, ...args: unknown[]) {
      const out = Reflect.apply(original, this, args);
      ops += cost(this, out);
      record?.(this as RegExp, args[0]);
      return out;
    };
    Object.defineProperty(proto, name, { value: wrapper, writable: true, configurable: true });
    restore.push(() => Object.defineProperty(proto, name, { value: original, writable: true, configurable: true }));
  };
  let recording = true;
  wrap(RegExp.prototype, 'exec', () => 1, (re, input) => {
    if (!recording) return;
    recording = false; // the key is built with string built-ins: do not count or record those
    const key = `/${re.source}/${re.flags}`;
    const text = String(input);
    const seen = patterns.get(key);
    if (!seen) patterns.set(key, { re: new RegExp(re.source, re.flags), longestInput: text.length, longest: text });
    else if (text.length > seen.longestInput) Object.assign(seen, { longestInput: text.length, longest: text });
    recording = true;
  });
  for (const name of ARRAY_SCANS) wrap(Array.prototype, name, (self) => (recording ? (self as unknown[]).length : 0));
  wrap(Array.prototype, 'slice', (_self, out) => (recording ? (out as unknown[]).length : 0));
  for (const name of STRING_OPS) wrap(String.prototype, name, (_self, out) => (recording ? 1 + (typeof out === 'string' ? out.length : 0) : 0));
  try {
    const result = fn();
    return { result, ops, patterns };
  } finally {
    for (let i = restore.length - 1; i >= 0; i--) restore[i]();
  }
}
