import type { Doc } from '../document.ts';
import type { ToolCall } from '../tools/tool.ts';

/**
 * A programmatic proposer: enumerates plausible calls for one tool at one position, from the text before the
 * position only (`prefix` = `doc.text.slice(0, at)`), so a proposal can never copy what the call should predict.
 * Deterministic, and at most `MAX_PROPOSALS` calls per position. These make a small LM useful: it need not
 * write the call, only judge (through the losses) whether the call's result helps.
 */
export interface Proposer {
  /** The tool whose calls this proposer writes: "Calculator", "QA", "Calendar", "Translate". */
  readonly tool: string;
  /** Calls to try at `at`, most plausible first; `[]` when nothing fits. */
  propose(prefix: string, doc: Doc, at: number): ToolCall[];
}

/** Upper bound on the calls one proposer returns for one position. */
export const MAX_PROPOSALS = 10;
