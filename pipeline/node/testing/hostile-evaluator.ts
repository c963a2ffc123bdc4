/**
 * A synchronous evaluator that misbehaves on request, for isolated-calls.test.ts: the real worker-thread pool runs it
 * as it runs a catalog's evaluator. `(kind, text)`: "echo" answers `text`; "spin" never returns; "hog" allocates
 * until the heap is exhausted.
 */
import type { ToolResult } from '../../core/tools/tool.ts';

export function evaluate(kind: string, text: string): ToolResult {
  if (kind === 'spin') for (;;);
  if (kind === 'hog') {
    const kept: number[][] = [];
    for (;;) kept.push(Array.from({ length: 1 << 16 }, (_, i) => i + kept.length));
  }
  return { ok: true, value: text };
}
