/**
 * A Hugging Face byte-level BPE tokenizer.json as GGUF `tokenizer.ggml.*` metadata, as convert_hf_to_gguf's
 * `_set_vocab_gpt2` writes it: model "gpt2", one token string per id up to the model's vocab size (ids the
 * tokenizer lacks become "[PAD{id}]", type UNUSED), token types (NORMAL 1, CONTROL 3 for special added tokens,
 * USER_DEFINED 4 for other added tokens, UNUSED 5), the merges as "a b" strings, the special ids, and the
 * pre-tokenizer name llama.cpp splits text with before BPE.
 *
 * Pre-tokenizers: a bare ByteLevel with use_regex is GPT-2's regex ("gpt-2"); any other is refused in one line,
 * because a wrong pre-tokenizer silently tokenizes differently in llama.cpp.
 */
import { bool, str, u32, type GgufValue } from './gguf-writer.ts';

const TokenType = { NORMAL: 1, CONTROL: 3, USER_DEFINED: 4, UNUSED: 5 } as const;

interface TokenizerJson {
  model?: { type?: string; vocab?: Record<string, number>; merges?: (string | [string, string])[] };
  added_tokens?: { id: number; content: string; special?: boolean }[];
  pre_tokenizer?: { type?: string; use_regex?: boolean } | null;
}

/** The llama.cpp pre-tokenizer name for a tokenizer.json's pre_tokenizer; throws for one it cannot name. */
export function preTokenizerName(pre: TokenizerJson['pre_tokenizer'], what: string): string {
  if (pre?.type === 'ByteLevel' && pre.use_regex !== false) return 'gpt-2';
  throw new Error(`${what}: pre_tokenizer ${JSON.stringify(pre)?.slice(0, 120)} has no llama.cpp equivalent this converter knows (only ByteLevel with GPT-2's regex)`);
}

export interface SpecialIds {
  bos?: number;
  eos?: number;
  pad?: number;
  unk?: number;
  /** tokenizer_config.json add_bos_token (false for GPT-2 and the project's models). */
  addBos: boolean;
}

/** `tokenizer.ggml.*` entries for a byte-level BPE tokenizer.json over a model of `vocabSize` ids. */
export function tokenizerMetadata(json: TokenizerJson, vocabSize: number, special: SpecialIds, what = 'tokenizer.json'): Map<string, GgufValue> {
  const model = json.model;
  if (model?.type !== 'BPE' || !model.vocab) throw new Error(`${what}: model.type is ${JSON.stringify(model?.type)}; the GGUF converter writes byte-level BPE tokenizers only`);
  const tokens: string[] = Array.from({ length: vocabSize }, (_, id) => `[PAD${id}]`);
  const types: number[] = Array.from({ length: vocabSize }, () => TokenType.UNUSED);
  const place = (content: string, id: number, type: number) => {
    if (!Number.isInteger(id) || id < 0 || id >= vocabSize) throw new Error(`${what}: token ${JSON.stringify(content)} has id ${id}, outside the model's ${vocabSize} ids`);
    tokens[id] = content;
    types[id] = type;
  };
  for (const [content, id] of Object.entries(model.vocab)) place(content, id, TokenType.NORMAL);
  for (const t of json.added_tokens ?? []) place(t.content, t.id, t.special ? TokenType.CONTROL : TokenType.USER_DEFINED);
  const merges = (model.merges ?? []).map((m) => (typeof m === 'string' ? m : m.join(' ')));
  const meta = new Map<string, GgufValue>([
    ['tokenizer.ggml.model', str('gpt2')],
    ['tokenizer.ggml.pre', str(preTokenizerName(json.pre_tokenizer, what))],
    ['tokenizer.ggml.tokens', { type: 'string[]', value: tokens }],
    ['tokenizer.ggml.token_type', { type: 'i32[]', value: types }],
    ['tokenizer.ggml.merges', { type: 'string[]', value: merges }],
  ]);
  const ids: [keyof SpecialIds, string][] = [['bos', 'bos_token_id'], ['eos', 'eos_token_id'], ['unk', 'unknown_token_id'], ['pad', 'padding_token_id']];
  for (const [k, key] of ids) {
    const id = special[k];
    if (typeof id === 'number') meta.set(`tokenizer.ggml.${key}`, u32(id));
  }
  meta.set('tokenizer.ggml.add_bos_token', bool(special.addBos));
  meta.set('tokenizer.ggml.add_eos_token', bool(false));
  return meta;
}

/** The special ids from config.json, generation_config.json and tokenizer_config.json (token names resolved). */
export function specialIds(
  tokenizer: TokenizerJson,
  config: Record<string, unknown>,
  tokenizerConfig: Record<string, unknown> | undefined,
  generationConfig: Record<string, unknown> | undefined,
): SpecialIds {
  const byName = new Map<string, number>(Object.entries(tokenizer.model?.vocab ?? {}));
  for (const t of tokenizer.added_tokens ?? []) byName.set(t.content, t.id);
  const idOf = (key: string): number | undefined => {
    for (const source of [generationConfig, config]) {
      const v = source?.[`${key}_token_id`];
      if (typeof v === 'number') return v;
      if (Array.isArray(v) && typeof v[0] === 'number') return v[0];
    }
    const name = tokenizerConfig?.[`${key}_token`];
    const content = typeof name === 'string' ? name : (name as { content?: string } | undefined)?.content;
    return content === undefined ? undefined : byName.get(content);
  };
  return { bos: idOf('bos'), eos: idOf('eos'), pad: idOf('pad'), unk: idOf('unk'), addBos: tokenizerConfig?.add_bos_token === true };
}
