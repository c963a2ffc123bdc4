/**
 * The Translate tool's text heuristics: non-English spans inside English text, and how English a text is. Pure
 * functions over a string; spans are `[start, end)` in UTF-16 code units.
 */
import type { Span } from '../../text/spans.ts';

/** English function words: a run containing one is English. */
export const ENGLISH_WORDS = new Set(
  (
    'the of and to in is was were are be been being for with as on by at from this that these those it its an or ' +
    'which who whom whose has have had not but he she they we our you your his her their them will would shall ' +
    'can could may might should must there than all into upon such so if also more most other any each i me my us ' +
    'do does did no only over under about after before between through during without within would what when where ' +
    'how why while very same both few own then once here just now'
  ).split(' '),
);
/** Function words of Spanish, French, Portuguese, Italian, Catalan and German that are not English words. */
const FOREIGN_WORDS = new Set(
  (
    'de del la las los el y al con por para que una un unos unas su sus es está muy pero como más sobre ' +
    'le les des du et au aux pour sur avec dans est sont une qui ne pas ce cette ces leur nous vous ' +
    'dos das em os ao às não uma com pelo pela ' +
    'il di della delle dei degli nel nella che gli sono ' +
    'und der die das dem den ist nicht mit für von zu auf ein eine einer ' +
    'els amb ni'
  ).split(' '),
);
/** Letters English does not use. */
const FOREIGN_LETTERS = /[áéíóúñçàèìòùâêîôûäöüßãõœ¿¡]/i;

/** Foreign-ness of a run of words: 2 per lower-case foreign function word, 1 per word with a foreign letter. */
function foreignScore(words: string[]): number {
  let score = 0;
  for (const w of words) {
    const lw = w.toLowerCase();
    // Only lower-case articles count: "UN" is an acronym, "Al Qaida" a name used in English.
    if (FOREIGN_WORDS.has(lw) && !ENGLISH_WORDS.has(lw) && w === lw) score += 2;
    else if (FOREIGN_LETTERS.test(w)) score += 1;
  }
  return score;
}

/**
 * Non-English spans inside (presumably English) text. Two sources:
 *  - quoted text ("…", “…”, «…») of 1–12 words with no English function word and foreign score ≥ 1, or a score
 *    of 0 but an English gloss in parentheses right after it ("Himno Nacional Mexicano" (National Anthem of Mexico));
 *  - runs of words between punctuation and English function words, cut to their foreign words ± 2 words, of ≥ 3
 *    words and foreign score ≥ 2 ("Reino de Espana", "Resaca de la Palma"). Two-word names ("Los Angeles",
 *    "Buenos Aires") are not taken. Most hits in SOTU are place names: the loss filter decides if they help.
 * The span excludes the quotes. Sorted, non-overlapping.
 */
export function findForeignSpans(text: string): Span[] {
  const out: Span[] = [];
  const quotes = new RegExp(QUOTED.source, 'g');
  let close = -1; // the first » at or after the current «, found once for a run of «s
  for (let m = quotes.exec(text); m !== null; m = quotes.exec(text)) {
    let inner = m[1] ?? m[2] ?? null;
    let start = m.index + 1;
    let end = m.index + m[0].length;
    if (inner === null) {
      // «: its content runs to the first » (at most 122 characters); no match here → on from the next character.
      if (close <= m.index) close = text.indexOf('»', m.index + 1);
      if (close === -1) close = Number.POSITIVE_INFINITY; // no » in the rest of the text
      if (close - m.index - 1 > 122) continue;
      const content = text.slice(m.index + 1, close);
      const quotedPart = guillemetInner(content);
      if (quotedPart === null) continue;
      inner = quotedPart;
      start = m.index + 1 + content.indexOf(inner);
      end = close + 1;
      quotes.lastIndex = end;
    }
    const words = inner.match(/\p{L}[\p{L}'’-]*/gu) ?? [];
    if (words.length === 0 || words.length > 12) continue;
    if (words.some((w) => ENGLISH_WORDS.has(w.toLowerCase()))) continue;
    GLOSS.lastIndex = end;
    const glossed = GLOSS.test(text);
    if (foreignScore(words) >= 1 || (glossed && words.length >= 2)) {
      out.push({ start, end: start + inner.length, text: inner });
    }
  }
  // Runs of words separated only by spaces (no punctuation), cut at English function words.
  const quoted = [...out];
  let q = 0;
  for (const clause of text.matchAll(/[^\n,;:()"“”«».!?[\]]+/g)) {
    const words = [...clause[0].matchAll(/\p{L}[\p{L}'’-]*/gu)];
    let run: RegExpMatchArray[] = [];
    const flush = () => {
      // Keep the foreign core of the run and two words either side ("… steamer El Dorado", "San Juan de Puerto
      // Rico"), then trim lower-case non-foreign words at the edges.
      const marked = run.flatMap((w, k) => (foreignScore([w[0]]) > 0 ? [k] : []));
      if (marked.length > 0) {
        let core = run.slice(Math.max(0, marked[0] - 2), marked[marked.length - 1] + 3);
        while (core.length && isEdgeNoise(core[0][0])) core = core.slice(1);
        while (core.length && isEdgeNoise(core[core.length - 1][0])) core = core.slice(0, -1);
        if (core.length >= 3 && foreignScore(core.map((w) => w[0])) >= 2) {
          const start = clause.index + core[0].index!;
          const last = core[core.length - 1];
          const end = clause.index + last.index! + last[0].length;
          // Quoted spans are sorted and disjoint; clause spans come in text order after each other.
          while (q < quoted.length && quoted[q].end <= start) q++;
          if (!(q < quoted.length && quoted[q].start < end)) out.push({ start, end, text: text.slice(start, end) });
        }
      }
      run = [];
    };
    for (const w of words) {
      if (ENGLISH_WORDS.has(w[0].toLowerCase())) flush();
      else run.push(w);
    }
    flush();
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Quoted text: "…" and “…” of 2–120 characters; at «, findForeignSpans reads to the next » (`guillemetInner`). */
const QUOTED = /"([^"\n]{2,120})"|“([^”\n]{2,120})”|«/;
/** An English gloss in parentheses right after a quote (sticky: tried at one offset). */
const GLOSS = /\s*\([A-Z][^)]{2,80}\)/y;
const SPACE = /\s/;

/**
 * The quoted part of «content»: what `«\s?([^»\n]{2,120}?)\s?»` captures — one space off each end when that leaves
 * 2–120 characters (a space off the start first) — or null where that pattern has no match. The pattern itself
 * backtracks polynomially (two optional spaces around a lazy group); `content` is at most 122 characters.
 */
function guillemetInner(content: string): string | null {
  const leads = SPACE.test(content[0] ?? '') ? [1, 0] : [0];
  for (const lead of leads) {
    // The lazy group ends at the first place where "\s?»" can follow: before a final space, else at the end.
    const ends = SPACE.test(content[content.length - 1] ?? '') ? [content.length - 1, content.length] : [content.length];
    for (const end of ends) {
      const k = end - lead;
      if (k >= 2 && k <= 120 && !content.slice(lead, end).includes('\n')) return content.slice(lead, end);
    }
  }
  return null;
}

function isEdgeNoise(w: string): boolean {
  return /^[a-z]/.test(w) && !FOREIGN_WORDS.has(w) && !FOREIGN_LETTERS.test(w);
}

/** Share of words that are English function words: ~0.4–0.5 for English prose, ~0 for Spanish or French. */
export function englishRatio(text: string): number {
  const words = text.toLowerCase().match(/[a-z\u00C0-\u024F']+/g) ?? [];
  if (words.length === 0) return 0;
  return words.filter((w) => ENGLISH_WORDS.has(w)).length / words.length;
}
