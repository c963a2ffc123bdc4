/**
 * Document pre-filters (paper, App. A.1): cheap per-tool tests that keep the expensive LM stages for documents where
 * a tool could plausibly help. Each tool states its own (its spec's `prefilter`); the verdict's reason says why, on
 * pass and on fail, and its `kind` is what stats.json counts drops by.
 */
import type { Doc } from '../document.ts';
import type { PrefilterVerdict, ToolSpec } from '../tools/spec.ts';

export type { PrefilterVerdict } from '../tools/spec.ts';

/** The tool's verdict; a tool without a pre-filter passes every document. */
export function prefilter(spec: Pick<ToolSpec, 'prefilter'>, doc: Doc): PrefilterVerdict {
  return spec.prefilter ? spec.prefilter(doc) : { pass: true, kind: 'no_prefilter', reason: 'no pre-filter' };
}
