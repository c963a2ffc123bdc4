/**
 * Word vectors in a compact binary form (issue 47 item 4): the trimmed GloVe vectors of pipeline/data/word-vectors.bin
 * (written by pipeline/data/word-vectors.ts). The platform passes the file's bytes in; nothing here reads a file.
 *
 * Layout, little-endian:
 *   "TFWV"  uint32 version (1)  uint32 count  uint32 dims  uint32 wordBytes
 *   words: UTF-8, joined by "\n" (wordBytes bytes), then zero padding to a multiple of 4
 *   ranks: uint32 × count — each word's position in the source's list (its frequency rank, 0 = most frequent)
 *   scales: float32 × count — each word's quantization step
 *   values: int8 × count × dims — component i of word w is values[w·dims + i] × scales[w]
 */

const MAGIC = 'TFWV';
const VERSION = 1;
const HEADER_BYTES = 20;

export interface WordVectors {
  readonly dims: number;
  /** Words, in the file's order (the source's frequency order). */
  readonly words: readonly string[];
  /** Each word's frequency rank in the source (0 = most frequent). */
  readonly ranks: Uint32Array;
  /** The word's row, or undefined. */
  indexOf(word: string): number | undefined;
  /** Row `index`'s unit vector (dequantized and renormalized): a view, not a copy. */
  vector(index: number): Float32Array;
}

/** One unit row as int8 with its step: scale = max |x| / 127, values = round(x / scale). */
export function quantizeRow(row: readonly number[]): { scale: number; values: Int8Array } {
  const scale = Math.max(...row.map(Math.abs)) / 127 || 1;
  return { scale, values: Int8Array.from(row, (x) => Math.round(x / scale)) };
}

/** The file's bytes for `words` (ranks and unit rows alongside). */
export function encodeWordVectors(words: readonly string[], ranks: readonly number[], rows: readonly (readonly number[])[], dims: number): Uint8Array {
  const text = new TextEncoder().encode(words.join('\n'));
  const padded = Math.ceil(text.length / 4) * 4;
  const count = words.length;
  const bytes = new Uint8Array(HEADER_BYTES + padded + count * 8 + count * dims);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  [VERSION, count, dims, text.length].forEach((x, i) => view.setUint32(4 + 4 * i, x, true));
  bytes.set(text, HEADER_BYTES);
  const ranksAt = HEADER_BYTES + padded;
  const scalesAt = ranksAt + 4 * count;
  const valuesAt = scalesAt + 4 * count;
  rows.forEach((row, w) => {
    if (row.length !== dims) throw new Error(`word vectors: ${JSON.stringify(words[w])} has ${row.length} components, not ${dims}`);
    const { scale, values } = quantizeRow(row);
    view.setUint32(ranksAt + 4 * w, ranks[w], true);
    view.setFloat32(scalesAt + 4 * w, scale, true);
    bytes.set(new Uint8Array(values.buffer), valuesAt + w * dims);
  });
  return bytes;
}

/** Parses the file's bytes; `what` names the file in the one-line error a malformed file gets. */
export function parseWordVectors(bytes: Uint8Array, what = 'word vectors'): WordVectors {
  const fail = (why: string): never => {
    throw new Error(`${what}: ${why}`);
  };
  if (bytes.length < HEADER_BYTES || new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC) fail('not a word-vector file (no TFWV header)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const [version, count, dims, wordBytes] = [4, 8, 12, 16].map((at) => view.getUint32(at, true));
  if (version !== VERSION) fail(`version ${version}, expected ${VERSION}`);
  const ranksAt = HEADER_BYTES + Math.ceil(wordBytes / 4) * 4;
  const valuesAt = ranksAt + 8 * count;
  if (dims === 0 || bytes.length !== valuesAt + count * dims) fail(`${bytes.length} bytes, expected ${valuesAt + count * dims} for ${count} words × ${dims} dims`);
  const words = new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + wordBytes)).split('\n');
  if (words.length !== count) fail(`${words.length} words, the header says ${count}`);
  const ranks = new Uint32Array(count);
  const unit = new Float32Array(count * dims);
  for (let w = 0; w < count; w++) {
    ranks[w] = view.getUint32(ranksAt + 4 * w, true);
    const scale = view.getFloat32(ranksAt + 4 * count + 4 * w, true);
    let norm = 0;
    for (let i = 0; i < dims; i++) {
      const x = ((bytes[valuesAt + w * dims + i] << 24) >> 24) * scale; // int8 from a byte
      unit[w * dims + i] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm) || 1;
    for (let i = 0; i < dims; i++) unit[w * dims + i] /= norm;
  }
  const index = new Map(words.map((word, i) => [word, i]));
  return {
    dims,
    words,
    ranks,
    indexOf: (word) => index.get(word),
    vector: (i) => unit.subarray(i * dims, (i + 1) * dims),
  };
}

/** The cosine of two unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
