/**
 * Byte-level BPE (GPT-2 style): training on text, encoding, decoding, and the Hugging Face `tokenizer.json`.
 *
 * Pre-tokenisation is GPT-2's regex over the text, each piece's UTF-8 bytes mapped to printable characters
 * (bytes_to_unicode: a space is "Ġ"); merges are applied by rank inside a piece. `" ["` and `"->"` are merged
 * first and nothing merges with them, `"["`, `"]"`, so the call syntax's three markers are always single tokens.
 * The last id is `<|endoftext|>`: document separator, beginning of sequence, and pad.
 */

import { byteToUnicode } from '../onnx-export/byte-tokenizer.ts';

export const EOS = '<|endoftext|>';

/** GPT-2's pre-tokenisation pattern (the one Transformers.js and HF tokenizers use with ByteLevel use_regex). */
const PRETOKENIZE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

export const BYTE_TO_CHAR = byteToUnicode(); // GPT-2's bytes_to_unicode: a space is "Ġ"
const CHAR_TO_BYTE = new Map(BYTE_TO_CHAR.map((c, b) => [c, b]));
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** Byte-level string of one pre-tokenised piece. */
function toByteChars(piece: string): string {
  let s = '';
  for (const b of utf8.encode(piece)) s += BYTE_TO_CHAR[b];
  return s;
}

export function pretokenize(text: string): string[] {
  return (text.match(PRETOKENIZE) ?? []).map(toByteChars);
}

/** Merges applied first, in this order, whatever the training text. */
const FORCED: [string, string][] = [['Ġ', '['], ['-', '>']];
/** A merge may not produce a token containing these (except the forced ones), so they stay single tokens. */
const PROTECTED = ['[', ']', '->'];

export interface TrainOptions {
  /** Total vocabulary including the 256 bytes and `<|endoftext|>`. */
  vocabSize: number;
  /**
   * Merge " 0".." 9" and every pair of digits "00".."99" right after the forced markers, and no other merge with a
   * digit, so a number is a few chunks (" 48213" → "Ġ4", "82", "13"): each is rarer than a single digit, so copying
   * it from context is less ambiguous, and its first occurrence carries up to ~ln 100 nats. @default false
   */
  digitPairs?: boolean;
}

/** Learn merges from texts (counts pieces, then greedily merges the most frequent allowed pair). */
export function trainBpe(texts: Iterable<string>, options: TrainOptions): BpeTokenizer {
  const counts = new Map<string, number>();
  for (const text of texts) for (const p of pretokenize(text)) counts.set(p, (counts.get(p) ?? 0) + 1);
  const words = [...counts].map(([w, c]) => ({ syms: [...w], count: c }));
  const merges: [string, string][] = [];
  const apply = (a: string, b: string): void => {
    for (const w of words) {
      const s = w.syms;
      for (let i = 0; i < s.length - 1; i++) {
        if (s[i] === a && s[i + 1] === b) s.splice(i, 2, a + b);
      }
    }
  };
  const forced: [string, string][] = [...FORCED];
  if (options.digitPairs) {
    for (let d = 0; d < 10; d++) forced.push(['Ġ', String(d)]);
    for (let d = 0; d < 100; d++) forced.push([String(Math.floor(d / 10)), String(d % 10)]);
  }
  for (const [a, b] of forced) {
    merges.push([a, b]);
    apply(a, b);
  }
  const nMerges = options.vocabSize - 256 - 1;
  const forcedTokens = new Set(FORCED.map(([a, b]) => a + b));
  const hasDigit = /[0-9]/;
  const allowed = (a: string, b: string): boolean =>
    !forcedTokens.has(a) && !forcedTokens.has(b) && !PROTECTED.some((p) => (a + b).includes(p)) &&
    !(options.digitPairs && hasDigit.test(a + b));
  while (merges.length < nMerges) {
    const pairs = new Map<string, number>();
    for (const w of words) {
      const s = w.syms;
      for (let i = 0; i < s.length - 1; i++) {
        const key = s[i] + '\u0000' + s[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + w.count);
      }
    }
    let best = '';
    let bestCount = 1;
    for (const [k, c] of pairs) {
      if (c > bestCount || (c === bestCount && best !== '' && k < best)) {
        const [a, b] = k.split('\u0000');
        if (allowed(a, b)) {
          best = k;
          bestCount = c;
        }
      }
    }
    if (!best) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    apply(a, b);
  }
  return new BpeTokenizer(merges);
}

export class BpeTokenizer {
  /** Token string (byte-level) → id: bytes 0..255 in bytes_to_unicode order, then one id per merge, then EOS. */
  readonly vocab = new Map<string, number>();
  readonly idToToken: string[] = [];
  readonly eosId: number;
  private readonly ranks = new Map<string, number>();
  private readonly cache = new Map<string, number[]>();

  constructor(readonly merges: [string, string][]) {
    for (let b = 0; b < 256; b++) this.add(BYTE_TO_CHAR[b]);
    merges.forEach(([a, b], rank) => {
      this.ranks.set(a + '\u0000' + b, rank);
      this.add(a + b);
    });
    this.eosId = this.add(EOS);
  }

  private add(token: string): number {
    const id = this.idToToken.length;
    this.vocab.set(token, id);
    this.idToToken.push(token);
    return id;
  }

  get vocabSize(): number {
    return this.idToToken.length;
  }

  /** Text → ids, without special tokens (an "<|endoftext|>" in the text is encoded as plain bytes). */
  encode(text: string): number[] {
    const ids: number[] = [];
    for (const piece of pretokenize(text)) {
      let cached = this.cache.get(piece);
      if (!cached) {
        cached = this.bpe(piece).map((t) => this.vocab.get(t)!);
        if (this.cache.size < 200_000) this.cache.set(piece, cached);
      }
      for (const id of cached) ids.push(id);
    }
    return ids;
  }

  private bpe(piece: string): string[] {
    const syms = [...piece];
    for (;;) {
      let bestRank = Infinity;
      let at = -1;
      for (let i = 0; i < syms.length - 1; i++) {
        const r = this.ranks.get(syms[i] + '\u0000' + syms[i + 1]);
        if (r !== undefined && r < bestRank) {
          bestRank = r;
          at = i;
        }
      }
      if (at < 0) return syms;
      syms.splice(at, 2, syms[at] + syms[at + 1]);
    }
  }

  decode(ids: readonly number[]): string {
    const bytes: number[] = [];
    for (const id of ids) {
      if (id === this.eosId) continue;
      for (const ch of this.idToToken[id]) bytes.push(CHAR_TO_BYTE.get(ch)!);
    }
    return utf8Decoder.decode(new Uint8Array(bytes));
  }

  /** The Hugging Face tokenizer.json object (GPT-2 layout: ByteLevel pre-tokenizer/decoder/post-processor). */
  toJSON(): object {
    return {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: [
        { id: this.eosId, content: EOS, single_word: false, lstrip: false, rstrip: false, normalized: true, special: true },
      ],
      normalizer: null,
      pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
      post_processor: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: false, use_regex: true },
      decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
      model: {
        type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: '', end_of_word_suffix: '',
        fuse_unk: false, byte_fallback: false, ignore_merges: false,
        vocab: Object.fromEntries(this.vocab),
        merges: this.merges.map(([a, b]) => `${a} ${b}`),
      },
    };
  }

  /** tokenizer_config.json: GPT-2's, with <|endoftext|> as bos, eos, unk and pad. */
  configJSON(maxLength: number): object {
    return {
      tokenizer_class: 'GPT2Tokenizer', add_bos_token: false, add_prefix_space: false, clean_up_tokenization_spaces: false,
      bos_token: EOS, eos_token: EOS, unk_token: EOS, pad_token: EOS, model_max_length: maxLength,
    };
  }

  static fromJSON(json: { model: { merges: (string | [string, string])[] } }): BpeTokenizer {
    return new BpeTokenizer(json.model.merges.map((m) => (typeof m === 'string' ? (m.split(' ') as [string, string]) : m)));
  }
}
