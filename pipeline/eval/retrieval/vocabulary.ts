/**
 * How much of a request's vocabulary it borrows from its gold tool's docs: the stemmed content words (terms.ts
 * `termsOf`, the words BM25 indexes) a request shares with a gold tool's name (in words) and description. A request
 * that shares none cannot be found by matching the docs' words; the blind set (blind-requests.jsonl) is made only
 * of such requests, and every set's table reports the share that does share one (`docsVocabularyShare`).
 */
import { termsOf } from '../../core/retrieval/terms.ts';
import { nameWords, type RetrievableTool } from '../../core/retrieval/tool-text.ts';

/** The stemmed words of `text` that also occur in the name or description of any tool in `gold`, sorted. */
export function sharedDocWords(text: string, gold: readonly RetrievableTool[]): string[] {
  const docs = new Set(gold.flatMap((t) => termsOf(`${nameWords(t.name)} ${t.description}`)));
  return [...new Set(termsOf(text).filter((w) => docs.has(w)))].sort();
}

/** The share of `requests` that share at least one stemmed word with a gold tool's name or description. */
export function docsVocabularyShare(requests: readonly { text: string; gold: readonly string[] }[], tools: ReadonlyMap<string, RetrievableTool>): { shared: number; requests: number } {
  const shared = requests.filter((r) => sharedDocWords(r.text, r.gold.map((g) => tools.get(g)!)).length > 0).length;
  return { shared, requests: requests.length };
}
