import { tail } from '../../text/spans.ts';
import { ENGLISH_WORDS, findForeignSpans } from './foreign-spans.ts';

/** How far back (characters) a foreign span may end and still be "the one just read". */
export const TRANSLATE_LOOKBACK_CHARS = 200;

/**
 * Translate(span): the most recent non-English span in the prefix, if it ends within the last 200 characters (the
 * paper's MT calls follow the foreign text they translate). A quoted name of 2–12 words with no English function
 * word that ends right at the position ("Himno Nacional Mexicano") also counts: `findForeignSpans` needs the
 * English gloss after it to be sure, and the proposer must not look there. One call at most.
 */
export function proposeTranslate(fullPrefix: string): string[] {
  // A span ending in the last 200 characters starts at most ~120 + 200 back; 600 leaves room.
  const prefix = tail(fullPrefix, 600);
  const quoted = quotedAtEnd(prefix);
  if (quoted) return [quoted];
  const spans = findForeignSpans(prefix);
  const last = spans[spans.length - 1];
  if (!last || prefix.length - last.end > TRANSLATE_LOOKBACK_CHARS) return [];
  return [last.text];
}

/** The inside of a quotation that closes at the end of the prefix, if it could be a foreign name. */
function quotedAtEnd(prefix: string): string | null {
  const m = /(?:"([^"\n]{3,120})"|“([^”\n]{3,120})”|«\s?([^»\n]{3,120}?)\s?»)\s*$/.exec(prefix);
  if (!m) return null;
  const inner = (m[1] ?? m[2] ?? m[3]).trim();
  const words = inner.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
  if (words.length < 2 || words.length > 12) return null;
  return words.some((w) => ENGLISH_WORDS.has(w.toLowerCase())) ? null : inner;
}
