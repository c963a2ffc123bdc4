import type { MathNode } from 'mathjs';
import type { ToolResult } from '../tool.ts';
import type { ToolRunner } from '../spec.ts';
import { bracketProblem, walkAllowlist } from '../mathjs-allowlist.ts';

/**
 * The paper's Calculator: arithmetic on numbers, result rounded to 2 decimals ("0.29", "1200").
 *
 * Safety is by construction, not by timeout (a synchronous evaluation cannot be interrupted):
 *   1. length cap and parenthesis-depth cap on the raw string, BEFORE mathjs parses it
 *      (10k nested parentheses are rejected in microseconds, the parser's recursion never runs);
 *   2. mathjs `parse`, then an ALLOWLIST walk over the tree with a node-count cap: finite number literals,
 *      + − * / ^, unary ±, parentheses, the one-argument functions in FUNCTIONS and the constants pi, e.
 *      Everything else (assignments, function definitions, matrices, strings, units, symbols, `import`,
 *      `evaluate`, `%`, `!`, ranges, conditionals…) is rejected with a reason;
 *   3. only then evaluation, on a mathjs instance whose dangerous functions are disabled (defence in depth).
 * With ≤ MAX_NODES scalar nodes and only O(1) float functions, evaluation is bounded.
 *
 * Notation: the paper's `400 / 1400`, `18 + 12 * 3`; also `×`, `÷`, `−` and thousands separators `1,400`.
 * Commas are ONLY thousands separators (`\d{1,3}(,\d{3})+`): every allowed function takes one argument, so a
 * comma never separates arguments; any other comma is rejected (`1,40`, `max(1, 2)`).
 */

/** Characters; the paper's calls are short (`400 / 1400`), 200 leaves room for any real one. */
export const MAX_EXPRESSION_LENGTH = 200;
/** Nesting depth of parentheses, checked on the raw string before parsing. */
export const MAX_PAREN_DEPTH = 16;
/** Nodes in the parsed tree. */
export const MAX_NODES = 100;

/** One-argument functions allowed, name → description (log is the natural logarithm). */
export const FUNCTIONS: Readonly<Record<string, string>> = {
  sqrt: 'square root',
  abs: 'absolute value',
  round: 'round to an integer',
  floor: 'round down',
  ceil: 'round up',
  exp: 'e to the power',
  log: 'natural logarithm',
  log10: 'base-10 logarithm',
};
export const CONSTANTS: readonly string[] = ['pi', 'e'];

/** Evaluates one expression, synchronously, on a loaded mathjs: `calculate('400 / 1400')` → "0.29". */
export type Calculate = (expression: string) => ToolResult;

let loading: Promise<Calculate> | undefined;

/**
 * The calculator, with mathjs imported on first use and once per process: importing mathjs costs ~1.8 CPU s, which
 * commands that never calculate (`--help`, `tools`, `example`, `export`) should not pay.
 * `#mathjs` (package.json "imports"): in Node, mathjs's one-file bundle (CommonJS: module.exports is the default
 * export) — its ES modules are ~1,260 files, each through tsx's loader hooks in this project's processes: 3.1 CPU s
 * against 0.4 (measured 2026-12-02, Node 20, the same mathjs version and code); elsewhere (Vite) the ES modules.
 */
export function loadCalculate(): Promise<Calculate> {
  loading ??= import('#mathjs').then((loaded) => {
    const { all, create } = (loaded as { default?: typeof loaded }).default ?? loaded;
    const math = create(all);
    const parse = math.parse;
    // Defence in depth, as mathjs's security guide recommends: nothing reachable from an expression can
    // re-enter the parser or extend the instance. (The allowlist already refuses these names.)
    const disabled = (name: string) => () => {
      throw new Error(`function ${name} is disabled`);
    };
    math.import(
      Object.fromEntries(
        ['import', 'createUnit', 'reviver', 'evaluate', 'parse', 'compile', 'simplify', 'derivative', 'resolve'].map(
          (name) => [name, disabled(name)],
        ),
      ),
      { override: true },
    );
    return (expression: string) => calculateWith(parse, expression);
  });
  return loading;
}

export class Calculator implements ToolRunner {
  async load(): Promise<void> {
    await loadCalculate();
  }

  async run(input: string): Promise<ToolResult> {
    return (await loadCalculate())(input);
  }
}

/** The checks, the parse on `parse` (the loaded instance's parser, taken before it was disabled), the evaluation. */
function calculateWith(parse: (text: string) => MathNode, expression: string): ToolResult {
  const text = normalize(expression);
  const early = checkRaw(text);
  if (early) return fail(early);

  let tree: MathNode;
  try {
    tree = parse(text);
  } catch (error) {
    return fail(`cannot parse: ${(error as Error).message}`);
  }
  const rejected = checkTree(tree);
  if (rejected) return fail(rejected);

  let value: unknown;
  try {
    value = tree.evaluate({});
  } catch (error) {
    return fail(`cannot evaluate: ${(error as Error).message}`);
  }
  if (typeof value !== 'number') return fail('result is not a real number');
  if (!Number.isFinite(value)) return fail('result is not finite');
  return formatNumber(value);
}

/** Round half away from zero to 2 decimals, no trailing zeros: 0.2857 → "0.29", 1200 → "1200", -0.001 → "0". */
export function formatNumber(value: number): ToolResult {
  if (Math.abs(value) >= 1e21) return fail('result is too large to write out'); // toFixed switches to 1e+21
  // Scale in decimal (via the exponent string), not binary, so 1.005 → "1.01" and 0.285 → "0.29".
  const abs = Math.abs(value);
  const scaled = String(abs).includes('e') ? abs * 100 : Number(`${abs}e2`); // "1e-7e2" would be NaN
  const rounded = Math.sign(value) * (Math.round(scaled) / 100);
  const text = rounded.toFixed(2).replace(/\.?0+$/, '');
  return { ok: true, value: text === '-0' ? '0' : text };
}

/** Unicode operators to ASCII, thousands separators removed. */
function normalize(expression: string): string {
  return expression
    .replace(/[×✕⋅·]/g, '*')
    .replace(/÷/g, '/')
    .replace(/[−–—]/g, '-')
    .replace(/(?<![\d.])\d{1,3}(?:,\d{3})+(?![\d,])/g, (group) => group.replace(/,/g, ''))
    .trim();
}

/** Checks on the raw string, cheap and linear, before the (recursive) parser sees it. */
function checkRaw(text: string): string | null {
  if (text.length === 0) return 'empty expression';
  if (text.length > MAX_EXPRESSION_LENGTH) return `expression longer than ${MAX_EXPRESSION_LENGTH} characters`;
  if (text.includes('%')) return 'percent and modulo not supported (write 50 / 100)';
  if (text.includes(',')) return 'a comma that is not a thousands separator (functions take one argument)';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) return 'control characters';
  if (bracketProblem(text, MAX_PAREN_DEPTH, false)) return `parentheses nested deeper than ${MAX_PAREN_DEPTH}`;
  return null;
}

/** The allowlist. Returns a reason for the first node outside it, or null when the whole tree is allowed. */
function checkTree(root: MathNode): string | null {
  return walkAllowlist([root], MAX_NODES, (node, stack) => {
    switch (node.type) {
      case 'ConstantNode':
        if (typeof node.value !== 'number') return `${typeof node.value} literal not allowed`;
        if (!Number.isFinite(node.value)) return 'non-finite literal not allowed';
        return null;
      case 'SymbolNode':
        return CONSTANTS.includes(node.name as string) ? null : `unknown name "${String(node.name)}"`;
      case 'FunctionNode': {
        const fn = node.fn as MathNode & { type: string; name?: string };
        const name = fn.type === 'SymbolNode' ? String(fn.name) : '';
        if (!Object.hasOwn(FUNCTIONS, name)) return `function "${name || fn.type}" not allowed`;
        const args = node.args as MathNode[];
        if (args.length !== 1) return `${name} takes one argument`;
        stack.push(args[0]);
        return null;
      }
      default:
        return `${node.type.replace(/Node$/, '').toLowerCase()} expressions not allowed`;
    }
  });
}

function fail(error: string): ToolResult {
  return { ok: false, error };
}
