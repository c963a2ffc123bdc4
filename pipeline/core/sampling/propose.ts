import type { Doc } from '../document.ts';
import { MAX_PROPOSALS, type ToolSpec } from '../tools/spec.ts';
import type { ToolCall } from '../tools/tool.ts';

/**
 * Programmatic proposals: the calls a tool's own proposer (its spec's `propose`) writes for position `at`, from
 * `prefix = doc.text.slice(0, at)` only, so a proposal can never copy what the call should predict. Deterministic,
 * at most MAX_PROPOSALS; `[]` for a tool without a proposer. These make a small LM useful: it need not write the
 * call, only judge (through the losses) whether the call's result helps.
 *
 * The prefix is passed separately (not re-sliced here) so callers may hand in exactly what the leakage guard checks.
 */
export function proposeCalls(spec: Pick<ToolSpec, 'name' | 'propose'>, prefix: string, doc: Doc, at: number): ToolCall[] {
  const inputs = spec.propose?.(prefix, doc, at) ?? [];
  return inputs.slice(0, MAX_PROPOSALS).map((input) => ({ tool: spec.name, input }));
}
