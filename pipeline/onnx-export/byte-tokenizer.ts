/**
 * A byte-level BPE tokenizer in the Hugging Face `tokenizer.json` format (GPT-2 style: ByteLevel pre-tokenizer,
 * post-processor and decoder). Token ids 0..255 are the bytes themselves (as GPT-2's byte→unicode characters,
 * e.g. space = "Ġ"), then one token per merge in order, then the special tokens. Isomorphic.
 */

/** GPT-2's reversible byte → printable-character map (`bytes_to_unicode`). */
export function byteToUnicode(): string[] {
  const printable: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map: string[] = new Array(256);
  let n = 0;
  for (let b = 0; b < 256; b++) {
    map[b] = printable.includes(b) ? String.fromCharCode(b) : String.fromCharCode(256 + n++);
  }
  return map;
}

export interface ByteTokenizerSpec {
  /** Merges in priority order, as pairs of token strings in byte-unicode form, e.g. ["Ġ", "["] for " [". */
  merges: readonly (readonly [string, string])[];
  /** Special tokens appended after the merges, e.g. ["<|endoftext|>"]. */
  specialTokens: readonly string[];
}

export interface ByteTokenizer {
  /** The `tokenizer.json` object. */
  json: Record<string, unknown>;
  vocabSize: number;
  /** Special token → id. */
  specialIds: Map<string, number>;
}

export function buildByteTokenizer(spec: ByteTokenizerSpec): ByteTokenizer {
  const vocab: Record<string, number> = {};
  byteToUnicode().forEach((ch, byte) => (vocab[ch] = byte));
  let id = 256;
  for (const [a, b] of spec.merges) {
    if (!(a in vocab) || !(b in vocab)) throw new Error(`merge ${a} + ${b}: both parts must already be tokens`);
    if (a + b in vocab) throw new Error(`merge ${a} + ${b}: "${a + b}" is already a token`);
    vocab[a + b] = id++;
  }
  const specialIds = new Map<string, number>();
  const addedTokens = spec.specialTokens.map((content) => {
    specialIds.set(content, id);
    return { id: id++, content, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true };
  });
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: addedTokens,
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges: spec.merges.map(([a, b]) => [a, b]),
    },
  };
  return { json, vocabSize: id, specialIds };
}
