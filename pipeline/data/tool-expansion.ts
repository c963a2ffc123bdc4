/**
 * Tool documents expanded with WordNet (issue 47 item 4): the words a user may say for what a tool does, from a
 * lexicon rather than from the catalog, whose one-line descriptions use the mathematician's word ("arithmetic mean",
 * "modulus") where a request says "average" or "left over". For each tool, the terms looked up are its name in
 * words, its description's content words and its documentation's category and examples (terms.ts stop words skipped), as single words and as adjacent pairs
 * and triples ("greatest common divisor", "square root"); for each found lemma, its first `senses` senses bring
 * their synonyms, their gloss (`gloss`) and the synonyms of their derivationally related (`related`) and
 * hypernym (`hypernyms`) senses. The result is plain text, one string per tool, committed as
 * pipeline/data/tool-expansions.json (build-tool-expansions.ts) so that an index is built without reading WordNet. Settings chosen
 * on the dev splits (pipeline/eval/retrieval/expansion-tuning.md).
 */
import { STOP_WORDS } from '../core/retrieval/terms.ts';
import { descriptionProse as prose, nameWords, type RetrievableTool } from '../core/retrieval/tool-text.ts';
import type { Lexicon } from './wordnet-lexicon.ts';

export interface ExpansionOptions {
  /** Senses per lemma, the most frequent first. */
  senses: number;
  gloss: boolean;
  related: boolean;
  hypernyms: boolean;
}

/** Lemmas to look up in a text: runs of 1–3 adjacent content words, longest first. */
export function lookupTerms(text: string): string[] {
  const words = text.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  const out: string[] = [];
  for (let n = 3; n >= 1; n--) {
    for (let i = 0; i + n <= words.length; i++) {
      const run = words.slice(i, i + n);
      if (run.some((w) => STOP_WORDS.has(w) || w.length < 3)) continue;
      out.push(run.join('_'));
    }
  }
  return [...new Set(out)];
}

/** The expansion text of one tool. */
export function expandTool(tool: RetrievableTool, lexicon: Lexicon, options: ExpansionOptions): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const synonyms = (key: string) => lexicon.sense(key)?.words ?? [];
  const doc = tool.documentation;
  for (const term of lookupTerms(`${nameWords(tool.name)} ${prose(tool.description)} ${doc ? [doc.category, ...doc.examples].join(' ') : ''}`)) {
    const keys = lexicon.senses.get(term) ?? (term.endsWith('s') ? lexicon.senses.get(term.slice(0, -1)) : undefined) ?? [];
    for (const key of keys.slice(0, options.senses)) {
      const sense = lexicon.sense(key);
      if (!sense || seen.has(key)) continue;
      seen.add(key);
      out.push(...sense.words);
      if (options.gloss) out.push(sense.gloss);
      for (const [symbol, target] of sense.pointers) {
        if ((options.related && symbol === '+') || (options.hypernyms && symbol === '@')) out.push(...synonyms(target));
      }
    }
  }
  return out.join(' ; ');
}
