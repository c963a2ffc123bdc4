import { all, create, type MathNode } from 'mathjs';
import { bracketProblem, walkAllowlist } from '../../mathjs-allowlist.ts';
import type { ToolResult } from '../../tool.ts';

/**
 * One mathjs function run as a tool, under the Calculator's rules (calculator/calculate.ts): the call
 * `gcd(8, 12)` is the function's name and its argument text `8, 12`, and safety is by construction, not by timeout
 * (a synchronous evaluation cannot be interrupted):
 *   1. caps on the raw argument text BEFORE mathjs parses it: length, parenthesis depth, control characters;
 *   2. mathjs `parse` of `name(args)`, then an ALLOWLIST walk over the tree with a node-count cap. The root must be
 *      the call of `name` itself; inside it only literals (finite numbers, short strings, booleans), arrays, objects
 *      of those (options such as `{notation: "fixed"}`), + − * / ^ and unary ±, parentheses, the constants pi, e,
 *      i, and unit names (`to(5 cm, inch)`), and calls of the value constructors `complex`, `unit`, `index`,
 *      `matrix`, `sparse`. No other call (so no `import`, `evaluate`, `parse`, `createUnit`, `bignumber`, `fraction`, `bigint`
 *      nested in an argument: their exact arithmetic can run for ever), no symbol, assignment, function definition,
 *      range, accessor or conditional;
 *   3. the arguments are evaluated (literals, arithmetic and value constructors only, bounded by the node cap), and
 *      functions whose work grows with an argument's VALUE (zeros(n, n), stirlingS2(n, k), isPrime(n),
 *      setPowerset(set), nthRoots(x, n), eigs(x, precision)…) get bounds on those EVALUATED values (SIZE_BOUNDS,
 *      ARGUMENT_BOUNDS): `zeros(10^5, 10^5)` is refused as `zeros(100000, 100000)` is (literals alone let it by);
 *   4. the function is called on those values, on a mathjs instance whose dangerous functions are disabled (defence
 *      in depth), with a seeded random generator (the same call gives the same result); the result's size is checked
 *      before it is turned into text (MAX_RESULT_ITEMS), and its text capped.
 * On Node the whole evaluation also runs in a worker thread with a heap limit and a deadline
 * (node/tools/isolated-calls.ts): these bounds make refusals fast and precise, the worker makes a missed case cost one
 * terminated thread, not the server.
 */

/** Characters of argument text; mathjs's own examples are under 60. */
export const MAX_ARGUMENTS_LENGTH = 200;
/** Nesting depth of brackets of any kind, checked on the raw string before parsing. */
export const MAX_BRACKET_DEPTH = 8;
/** Nodes in the parsed tree. */
export const MAX_NODES = 200;
/** Characters of a string literal. */
export const MAX_STRING_LITERAL = 100;
/** Characters of a result's text. */
export const MAX_RESULT_LENGTH = 2_000;
/** Numbers in a result (matrix elements, list items), counted before the result is formatted. */
export const MAX_RESULT_ITEMS = 10_000;

/**
 * The functions that re-enter the parser or extend the instance: disabled on the instance, never served. (`config`
 * and `typed` stay: other functions call them; they are not served and not callable inside an argument.)
 */
export const DISABLED = ['import', 'createUnit', 'reviver', 'replacer', 'evaluate', 'parse', 'compile', 'parser', 'simplify', 'derivative', 'resolve', 'help', 'chain'] as const;

/** Calls allowed inside an argument: constructors of values whose arithmetic is bounded. */
const NESTED_CALLS: ReadonlySet<string> = new Set(['complex', 'unit', 'index', 'matrix', 'sparse']);
const CONSTANTS: ReadonlySet<string> = new Set(['pi', 'e', 'i', 'true', 'false', 'null', 'Infinity', 'NaN', 'tau', 'phi']);

/**
 * Bounds on argument values for functions whose time or output grows with them: every number literal in the call is
 * at most `number` in magnitude (an integer when `integers`) and the product of their magnitudes (each counted as at
 * least 1) at most `product`; strings are refused (`range("1:1e9")`). `items`: most array elements in the call
 * (`setPowerset` is 2^n). Measured without bounds: stirlingS2(1000, 500) 0.34 s, random([1000, 1000]) 6.6 s,
 * isPrime(9007199254740881) 1.2 s, format(1, 1e6) 0.9 s.
 */
interface SizeBound {
  number?: number;
  product?: number;
  integers?: boolean;
  items?: number;
}
const COUNTING: SizeBound = { number: 200, product: 1e5, integers: true };
const SIZED: SizeBound = { number: 1e6, product: 1e4 };
const SIZE_BOUNDS: Readonly<Record<string, SizeBound>> = {
  zeros: COUNTING, ones: COUNTING, identity: COUNTING, range: COUNTING, factorial: COUNTING, combinations: COUNTING,
  combinationsWithRep: COUNTING, permutations: COUNTING, multinomial: COUNTING, bellNumbers: COUNTING, catalan: COUNTING,
  composition: COUNTING, stirlingS2: COUNTING, bernoulli: COUNTING,
  random: SIZED, randomInt: SIZED, pickRandom: SIZED, resize: SIZED, reshape: SIZED, diag: SIZED, freqz: SIZED, rotationMatrix: SIZED,
  // Trial division up to √n: 1e12 is 1e6 steps (20 of them: 20e6).
  isPrime: { number: 1e12, items: 20 },
  setPowerset: { items: 10 },
  setCartesian: { items: 30 },
};
/** format(value, precision) and its options: the precision (any number after the value) is at most 64 digits. */
const MAX_PRECISION = 64;

/**
 * Bounds on one argument, for functions whose work grows with it in a way SIZE_BOUNDS cannot say. Measured without
 * them: nthRoots(1, 1e5) 7.3 s (and 1e8 ran out of memory at 5 GB); eigs(x, 0) never converges.
 */
const ARGUMENT_BOUNDS: Readonly<Record<string, (args: readonly unknown[]) => string | null>> = {
  nthRoots: (args) => {
    const root = args[1] ?? 2;
    return typeof root === 'number' && Number.isInteger(root) && Math.abs(root) <= 1000 ? null : 'nthRoots takes an integer root of at most 1000 here';
  },
  eigs: (args) => {
    const option = args[1];
    const precision = typeof option === 'object' && option !== null ? (option as { precision?: unknown }).precision : option;
    return precision === undefined || (typeof precision === 'number' && precision >= 1e-15) ? null : 'eigs takes a precision of at least 1e-15 here';
  },
};

type MathInstance = ReturnType<typeof create>;
let instance: { math: MathInstance; parse: MathInstance['parse']; reseed: (options: object) => unknown } | undefined;
const randomlySeeded = new Set(['random', 'randomInt', 'pickRandom']);
const disabled = (name: string) => () => {
  throw new Error(`function ${name} is disabled`);
};

/** The sandbox's own mathjs instance, made on first use (mathjs `create(all)` costs seconds of CPU at start-up). */
function sandboxMath(): NonNullable<typeof instance> {
  if (instance) return instance;
  const math = create(all);
  // A fixed seed, so the random tools give the same result for the same call.
  math.config({ randomSeed: 'toolformer' });
  const reseed = (math.config as (options: object) => unknown).bind(math);
  const parse = math.parse;
  math.import(Object.fromEntries(DISABLED.map((name) => [name, disabled(name)])), { override: true });
  instance = { math, parse, reseed };
  return instance;
}

/** Whether `name` is a function the sandbox can run (not one of DISABLED). */
export function isSandboxFunction(name: string): boolean {
  const math = sandboxMath().math as unknown as Record<string, unknown>;
  return !(DISABLED as readonly string[]).includes(name) && Object.hasOwn(math, name) && typeof math[name] === 'function';
}

/** `runMathjs('gcd', '8, 12')` → `{ok: true, value: "4"}`; a refusal or failure is `{ok: false, error}`, never a throw. */
export function runMathjs(name: string, args: string): ToolResult {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name) || !isSandboxFunction(name)) {
    return fail(`${JSON.stringify(name.slice(0, 40))} is not a served mathjs function`);
  }
  const { math, parse, reseed } = sandboxMath();
  const early = checkRaw(args);
  if (early) return fail(early);
  let tree: MathNode;
  try {
    tree = parse(`${name}(${args})`);
  } catch (error) {
    return fail(`cannot parse: ${(error as Error).message}`);
  }
  const rejected = checkCall(tree, name, math);
  if (rejected) return fail(rejected);
  let values: unknown[];
  try {
    values = ((tree as MathNode & { args?: MathNode[] }).args ?? []).map((arg) => arg.evaluate({}));
  } catch (error) {
    return fail(`${name}: ${(error as Error).message}`);
  }
  const tooBig = checkValues(name, values, math);
  if (tooBig) return fail(tooBig);
  let value: unknown;
  try {
    // The generator is re-made only when the seed changes: a different seed first, then the call's own.
    if (randomlySeeded.has(name)) for (const seed of ['', `toolformer ${args}`]) reseed({ randomSeed: seed });
    value = (math as unknown as Record<string, (...a: unknown[]) => unknown>)[name](...values);
  } catch (error) {
    return fail(`${name}: ${(error as Error).message}`);
  }
  if (countLeaves(value, math, MAX_RESULT_ITEMS) > MAX_RESULT_ITEMS) return fail(`result of more than ${MAX_RESULT_ITEMS} numbers`);
  const text = typeof value === 'string' ? value : math.format(value, { precision: 14 });
  if (text.length > MAX_RESULT_LENGTH) return fail(`result longer than ${MAX_RESULT_LENGTH} characters`);
  return { ok: true, value: text };
}

function checkRaw(text: string): string | null {
  if (text.length > MAX_ARGUMENTS_LENGTH) return `arguments longer than ${MAX_ARGUMENTS_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'control characters';
  const problem = bracketProblem(text, MAX_BRACKET_DEPTH, true);
  if (problem === 'deeper') return `brackets nested deeper than ${MAX_BRACKET_DEPTH}`;
  return problem === 'unbalanced' ? 'unbalanced brackets' : null;
}

/** The allowlist over `name(args)`: a reason, or null when its shape is allowed (values are checked after evaluation). */
function checkCall(root: MathNode, name: string, math: MathInstance): string | null {
  const call = root as MathNode & { fn?: { type: string; name?: string }; args?: MathNode[] };
  if (root.type !== 'FunctionNode' || call.fn?.type !== 'SymbolNode' || call.fn.name !== name) {
    return 'the arguments must be one argument list (write "8, 12", not "8, 12) + f(")';
  }
  return walkAllowlist([root], MAX_NODES, (node, stack) => {
    switch (node.type) {
      case 'ConstantNode': {
        const value = node.value;
        if (typeof value === 'string') return value.length > MAX_STRING_LITERAL ? `string longer than ${MAX_STRING_LITERAL} characters` : null;
        // Infinity and NaN too (isFinite(Infinity)): the bounds refuse them where they count.
        return typeof value === 'number' || typeof value === 'boolean' || value === null ? null : `${typeof value} literal not allowed`;
      }
      case 'SymbolNode': {
        const symbol = String(node.name);
        return CONSTANTS.has(symbol) || math.Unit.isValuelessUnit(symbol) ? null : `unknown name "${symbol.slice(0, 40)}"`;
      }
      case 'ArrayNode':
        stack.push(...(node.items as MathNode[]));
        return null;
      case 'ObjectNode':
        stack.push(...Object.values(node.properties as Record<string, MathNode>));
        return null;
      case 'FunctionNode': {
        const fn = node.fn as MathNode & { type: string; name?: string };
        const inner = fn.type === 'SymbolNode' ? String(fn.name) : '';
        // The root is the call of `name` itself (checked above); inside it only the value constructors.
        if (node !== root && !NESTED_CALLS.has(inner)) return `function "${(inner || fn.type).slice(0, 40)}" not allowed inside the arguments`;
        stack.push(...(node.args as MathNode[]));
        return null;
      }
      default:
        return `${node.type.replace(/Node$/, '').toLowerCase()} expressions not allowed`;
    }
  });
}

/** The numbers, elements and strings in evaluated arguments (matrices, lists, complex parts, option objects). */
function argumentContents(values: readonly unknown[], math: MathInstance): { numbers: number[]; items: number; strings: number } {
  const out = { numbers: [] as number[], items: 0, strings: 0 };
  const visit = (v: unknown, inList: boolean): void => {
    if (inList) out.items++;
    if (typeof v === 'number') out.numbers.push(v);
    else if (typeof v === 'string') out.strings++;
    else if (math.isMatrix(v)) (v.valueOf() as unknown[]).forEach((x) => visit(x, true));
    else if (Array.isArray(v)) v.forEach((x) => visit(x, true));
    else if (math.isComplex(v)) out.numbers.push(v.re, v.im);
    else if (math.isBigNumber(v) || math.isFraction(v)) out.numbers.push(Number(v.valueOf()));
    else if (typeof v === 'object' && v !== null && !math.isUnit(v)) Object.values(v).forEach((x) => visit(x, false));
  };
  values.forEach((v) => visit(v, false));
  return out;
}

/** The size bounds of `name`, on its evaluated arguments: a reason, or null. */
function checkValues(name: string, values: readonly unknown[], math: MathInstance): string | null {
  if (name === 'format' && values.slice(1).some((v) => argumentContents([v], math).numbers.some((x) => Math.abs(x) > MAX_PRECISION))) {
    return `format: a precision of at most ${MAX_PRECISION}`;
  }
  const argument = ARGUMENT_BOUNDS[name]?.(values);
  if (argument) return argument;
  const bound = SIZE_BOUNDS[name];
  if (!bound) return null;
  const { numbers, items, strings } = argumentContents(values, math);
  if (bound.items !== undefined && items > bound.items) return `${name} takes at most ${bound.items} elements here`;
  if (bound.number === undefined) return null;
  if (bound.product !== undefined && strings > 0) return `${name} takes numbers here, not strings`;
  if (numbers.some((x) => !(Math.abs(x) <= (bound.number as number)) || (bound.integers === true && !Number.isInteger(x)))) {
    return `${name} takes ${bound.integers ? 'integers' : 'numbers'} of at most ${bound.number} here`;
  }
  const product = numbers.reduce((p, x) => p * Math.max(1, Math.abs(x)), 1);
  if (bound.product !== undefined && product > bound.product) return `${name}: arguments too large (their product is over ${bound.product})`;
  return null;
}

/** Numbers in `value` (matrix elements, list items, object fields), counted up to `cap` + 1. */
function countLeaves(value: unknown, math: MathInstance, cap: number): number {
  let n = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && n <= cap) {
    const v = stack.pop();
    if (math.isMatrix(v)) stack.push(v.valueOf());
    else if (Array.isArray(v)) {
      if (v.length > cap) return cap + 1;
      stack.push(...v);
    } else if (typeof v === 'object' && v !== null && !math.isUnit(v) && !math.isComplex(v) && !math.isBigNumber(v) && !math.isFraction(v)) stack.push(...Object.values(v));
    else n++;
  }
  return n;
}

function fail(error: string): ToolResult {
  return { ok: false, error };
}
