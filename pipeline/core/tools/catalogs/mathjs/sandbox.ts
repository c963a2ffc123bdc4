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
 *   3. functions whose work grows with an argument's VALUE (zeros(n, n), stirlingS2(n, k), isPrime(n),
 *      setPowerset(set)…) get bounds on those values (SIZE_BOUNDS), checked on the tree;
 *   4. evaluation on a mathjs instance whose dangerous functions are disabled (defence in depth), with a seeded
 *      random generator (the same call gives the same result), and the result's text capped.
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
  // Trial division up to √n: 1e12 is 1e6 steps.
  isPrime: { number: 1e12 },
  setPowerset: { items: 10 },
  setCartesian: { items: 30 },
};
/** format(value, precision) and its options: the precision (any number after the value) is at most 64 digits. */
const MAX_PRECISION = 64;

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
  let value: unknown;
  try {
    // The generator is re-made only when the seed changes: a different seed first, then the call's own.
    if (randomlySeeded.has(name)) for (const seed of ['', `toolformer ${args}`]) reseed({ randomSeed: seed });
    value = tree.evaluate({});
  } catch (error) {
    return fail(`${name}: ${(error as Error).message}`);
  }
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

/** The allowlist over `name(args)`, then the function's size bounds. A reason, or null when allowed. */
function checkCall(root: MathNode, name: string, math: MathInstance): string | null {
  const call = root as MathNode & { fn?: { type: string; name?: string }; args?: MathNode[] };
  if (root.type !== 'FunctionNode' || call.fn?.type !== 'SymbolNode' || call.fn.name !== name) {
    return 'the arguments must be one argument list (write "8, 12", not "8, 12) + f(")';
  }
  const numbers: number[] = [];
  let items = 0;
  let strings = 0;
  const rejected = walkAllowlist([root], MAX_NODES, (node, stack) => {
    switch (node.type) {
      case 'ConstantNode': {
        const value = node.value;
        if (typeof value === 'number') {
          numbers.push(value); // Infinity and NaN too (isFinite(Infinity)); SIZE_BOUNDS refuse them where they count
        } else if (typeof value === 'string') {
          if (value.length > MAX_STRING_LITERAL) return `string longer than ${MAX_STRING_LITERAL} characters`;
          strings++;
        } else if (typeof value !== 'boolean' && value !== null) return `${typeof value} literal not allowed`;
        return null;
      }
      case 'SymbolNode': {
        const symbol = String(node.name);
        return CONSTANTS.has(symbol) || math.Unit.isValuelessUnit(symbol) ? null : `unknown name "${symbol.slice(0, 40)}"`;
      }
      case 'ArrayNode':
        items += (node.items as MathNode[]).length;
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
  if (rejected) return rejected;
  return checkSize(name, call.args ?? [], numbers, items, strings);
}

function checkSize(name: string, call: readonly MathNode[], numbers: readonly number[], items: number, strings: number): string | null {
  if (name === 'format' && call.slice(1).some((node) => tooPrecise(node))) return `format: a precision of at most ${MAX_PRECISION}`;
  const bound = SIZE_BOUNDS[name];
  if (!bound) return null;
  if (bound.items !== undefined && items > bound.items) return `${name} takes at most ${bound.items} elements here`;
  if (bound.number === undefined) return null;
  if (bound.product !== undefined && strings > 0) return `${name} takes numbers here, not strings`;
  if (numbers.some((x) => Math.abs(x) > (bound.number as number) || (bound.integers === true && !Number.isInteger(x)))) {
    return `${name} takes ${bound.integers ? 'integers' : 'numbers'} of at most ${bound.number} here`;
  }
  const product = numbers.reduce((p, x) => p * Math.max(1, Math.abs(x)), 1);
  if (bound.product !== undefined && product > bound.product) return `${name}: arguments too large (their product is over ${bound.product})`;
  return null;
}

/** A number over MAX_PRECISION anywhere in `node` (the precision argument, or an options object). */
function tooPrecise(node: MathNode): boolean {
  let found = false;
  node.traverse((n) => {
    const value = (n as MathNode & { value?: unknown }).value;
    if (n.type === 'ConstantNode' && typeof value === 'number' && Math.abs(value) > MAX_PRECISION) found = true;
  });
  return found;
}

function fail(error: string): ToolResult {
  return { ok: false, error };
}
