import type { Doc } from '../document.ts';
import type { ToolCall } from '../tools/tool.ts';
import { calculatorProposer } from './calculator.ts';
import { calendarProposer } from './calendar.ts';
import type { Proposer } from './proposer.ts';
import { qaProposer } from './qa.ts';
import { translateProposer } from './translate.ts';

export type { Proposer } from './proposer.ts';
export { MAX_PROPOSALS } from './proposer.ts';
export { calculatorProposer, calendarProposer, qaProposer, translateProposer };

/** One proposer per tool of the paper. */
export const defaultProposers: readonly Proposer[] = [calculatorProposer, qaProposer, calendarProposer, translateProposer];

/**
 * Calls for `tool` at `at`, from `prefix = doc.text.slice(0, at)` only; `[]` for a tool without a proposer.
 * The prefix is passed separately (not re-sliced here) so callers may hand in exactly what the leakage guard checks.
 */
export function propose(
  tool: string,
  prefix: string,
  doc: Doc,
  at: number,
  proposers: readonly Proposer[] = defaultProposers,
): ToolCall[] {
  const proposer = proposers.find((p) => p.tool === tool);
  return proposer ? proposer.propose(prefix, doc, at) : [];
}
