import type { Doc } from '../document.ts';
import type { CausalLM } from '../lm/lm.ts';
import { tokenOffsets } from '../lm/tokens.ts';

/**
 * The search budget (config `maxDocTokens`): which part of a document the annotation searches — pre-filters, p_i,
 * heuristic positions, proposals. LM work per document grows with its tokens (p_i is a forward pass over every token,
 * for every tool), and adversarial text is about one token per character, so without a budget a 1 MiB document held
 * a worker for ten minutes. The document itself is never cut: its whole text is written out, scoring windows read
 * the text after a position as usual, and a cut document is counted (stats.json `searchBudget`).
 */
export interface SearchSpan {
  /** The searched text is `text.slice(0, end)` (characters; the text's length when nothing was cut). */
  end: number;
  /** Whether the budget cut the text (end < text.length). */
  cut: boolean;
}

/** The document as the search sees it: its text cut to the search budget (the same object when nothing was cut). */
export function searchedDoc(work: { doc: Doc; searched: SearchSpan }): Doc {
  return work.searched.cut ? { ...work.doc, text: work.doc.text.slice(0, work.searched.end) } : work.doc;
}

/**
 * Characters encoded per budget token on the first try: byte-level BPE on English is about 4 per token, so a text over
 * the budget is almost always found over it at once; a text that is not is re-encoded with twice as many characters.
 */
const CHARS_PER_TOKEN_GUESS = 8;

/**
 * The searched part of `text`: all of it when it has at most `maxTokens` tokens (null: no budget), else its first
 * `maxTokens` tokens, cut back to the last whitespace when that keeps at least half of them, so the last searched word
 * is whole. Encodes a prefix of `maxTokens` × CHARS_PER_TOKEN_GUESS characters, doubled until it holds more than
 * `maxTokens` tokens (a text under the budget is encoded whole, as the stages do anyway): work in proportion to the
 * searched part, not to the document.
 */
export function searchSpan(lm: Pick<CausalLM, 'encode' | 'decode'>, text: string, maxTokens: number | null): SearchSpan {
  if (maxTokens === null) return { end: text.length, cut: false };
  let length = Math.min(text.length, maxTokens * CHARS_PER_TOKEN_GUESS);
  for (;;) {
    const ids = lm.encode(text.slice(0, safeCut(text, length)));
    if (ids.length > maxTokens) return { end: cutAt(lm, text, ids, maxTokens), cut: true };
    if (length >= text.length) return { end: text.length, cut: false };
    length = Math.min(text.length, length * 2);
  }
}

/** Where the first `maxTokens` of `ids` (the tokens of a prefix of `text`) end, at a word boundary if one is near. */
function cutAt(lm: Pick<CausalLM, 'encode' | 'decode'>, text: string, ids: number[], maxTokens: number): number {
  let end = safeCut(text, tokenOffsets(lm, ids.slice(0, maxTokens))[maxTokens]);
  // The prefix is encoded again by the stages; a tokenizer may split its last word differently when it stands alone,
  // so the count is checked and the cut moved back until it fits (one step, in practice).
  for (;;) {
    const space = lastWhitespace(text, end);
    if (space >= end / 2) end = space;
    const n = lm.encode(text.slice(0, end)).length;
    if (n <= maxTokens || end === 0) return end;
    end = safeCut(text, Math.floor((end * maxTokens) / n));
  }
}

/** Index of the last whitespace character before `end` (the searched text then ends before it), or -1. */
function lastWhitespace(text: string, end: number): number {
  for (let i = end - 1; i >= 0; i--) if (/\s/.test(text[i])) return i;
  return -1;
}

/** `end`, moved back one where it would split a UTF-16 surrogate pair. */
function safeCut(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return end > 0 && end < text.length && code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
