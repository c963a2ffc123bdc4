/**
 * The checks the two mathjs sandboxes share (the Calculator, calculator/calculate.ts, and the mathjs catalog,
 * catalogs/mathjs/sandbox.ts): the bracket depth of the raw text, checked before mathjs's recursive parser sees it,
 * and the arithmetic operators allowed in a parsed tree. Each sandbox walks its own allowlist and words its own
 * reasons; these are the pieces that are the same rule in both.
 */
import type { MathNode } from 'mathjs';

/** Operator text → the mathjs function it must map to (the pair is checked: an operator the parser maps to another function is refused). */
const BINARY: Readonly<Record<string, string>> = { '+': 'add', '-': 'subtract', '*': 'multiply', '/': 'divide', '^': 'pow' };
const UNARY: Readonly<Record<string, string>> = { '-': 'unaryMinus', '+': 'unaryPlus' };

/**
 * The first bracket problem in `text`, scanning left to right: `'deeper'` once ( [ { nest deeper than `maxDepth`,
 * `'unbalanced'` once a closing bracket has no opening one (only when `refuseUnbalanced`), else null. Linear and
 * non-recursive: 10k nested parentheses are refused in microseconds.
 */
export function bracketProblem(text: string, maxDepth: number, refuseUnbalanced: boolean): 'deeper' | 'unbalanced' | null {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    if (depth > maxDepth) return 'deeper';
    if (refuseUnbalanced && depth < 0) return 'unbalanced';
  }
  return null;
}

/**
 * An allowlist walk over `roots` (depth-first, without recursion): at most `maxNodes` nodes, else a reason. The
 * arithmetic both sandboxes allow is handled here — a ParenthesisNode, an OperatorNode of + − * / ^ or unary ± (each
 * mapped to its own mathjs function; another operator is refused); every other node goes to `visit`, which returns a
 * reason or null, pushing on `stack` the children it allows. The first reason is the walk's; null when all are allowed.
 */
export function walkAllowlist(roots: readonly MathNode[], maxNodes: number, visit: (node: MathNode & Record<string, unknown>, stack: MathNode[]) => string | null): string | null {
  const stack: MathNode[] = [...roots];
  let count = 0;
  while (stack.length > 0) {
    const node = stack.pop() as MathNode & Record<string, unknown>;
    if (++count > maxNodes) return `more than ${maxNodes} terms`;
    const reason = node.type === 'ParenthesisNode' || node.type === 'OperatorNode' ? arithmetic(node, stack) : visit(node, stack);
    if (reason) return reason;
  }
  return null;
}

function arithmetic(node: MathNode & Record<string, unknown>, stack: MathNode[]): string | null {
  if (node.type === 'ParenthesisNode') {
    stack.push(node.content as MathNode);
    return null;
  }
  const args = node.args as MathNode[];
  const op = node.op as string;
  const table = args.length === 1 ? UNARY : args.length === 2 ? BINARY : {};
  if (!Object.hasOwn(table, op) || table[op] !== node.fn) return `operator "${op}" not allowed`;
  stack.push(...args);
  return null;
}
