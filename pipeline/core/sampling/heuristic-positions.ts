/**
 * Heuristic call positions, beside the LM's p_i(" [") positions: where a tool's result would most plausibly help
 * predict the next tokens. Each tool says where (its spec's `positions`, e.g. the Calculator: before each number);
 * this keeps them inside the text, sorted and distinct.
 */
import type { ToolSpec } from '../tools/spec.ts';

/** Sorted, deduplicated positions in `(0, text.length]` for `spec`; `[]` for a tool without heuristics. */
export function heuristicPositions(spec: Pick<ToolSpec, 'positions'>, text: string): number[] {
  const positions = spec.positions?.(text) ?? [];
  return [...new Set(positions)].filter((p) => p > 0 && p <= text.length).sort((a, b) => a - b);
}
