/**
 * Leakage guard: a call's argument must be derivable from the text *before* its position. Otherwise the filter
 * rewards calls that copy the answer from the continuation they are scored on — the public-repo bug
 * `[Calculator(24*5) -> 120] 120/24=5`, where 24 and 5 appear only after the call, so the call "predicts" the text
 * perfectly without any tool use (paper App. A.1 drops MT calls whose input appears only after them).
 *
 * Each tool states its rule (its spec's `leaks`); a tool without one gets the default below, never no guard.
 */
import { clip, containsPhrase, normalize } from '../text/phrases.ts';
import type { ToolSpec } from '../tools/spec.ts';

/** The reason `input` leaks text from after its position, or null when it is derivable from `prefix`. */
export function leaks(spec: Pick<ToolSpec, 'leaks' | 'name'>, input: string, prefix: string): string | null {
  return spec.leaks ? spec.leaks(input, prefix) : defaultLeak(spec.name, input, prefix);
}

/** The default rule: every word and number of the argument appears (as a whole word) in the text before the call. */
export function defaultLeak(tool: string, input: string, prefix: string): string | null {
  const text = normalize(prefix);
  const words = [...new Set(normalize(input).match(/[\p{L}\p{N}]+(?:[.,'’-][\p{L}\p{N}]+)*/gu) ?? [])];
  const missing = words.filter((w) => !containsPhrase(text, w));
  if (missing.length === 0) return null;
  return `${tool} input "${clip(input)}" uses ${missing.map((w) => `"${w}"`).join(', ')}, not in the text before the call`;
}
