/**
 * A Hugging Face tokenizer.json as the pipeline uses it: text ↔ ids without special tokens added, an exact decode, and
 * whether an id is the tokenizer's. Shared by the ONNX runtime's LM (ort-lm.ts) and the backends that score elsewhere
 * but tokenize here (a server: node/model/lm-backends/server), so every backend turns the same text into the same ids.
 */
import { Tokenizer } from '@huggingface/tokenizers';

export class TextTokenizer {
  private readonly tokenizer: Tokenizer;

  /** @param tokenizer parsed tokenizer.json; @param tokenizerConfig parsed tokenizer_config.json, when there is one */
  constructor(tokenizer: Record<string, unknown>, tokenizerConfig?: Record<string, unknown>) {
    try {
      this.tokenizer = new Tokenizer(tokenizer, tokenizerConfig ?? {});
    } catch (error) {
      throw new Error(`tokenizer.json: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  encode(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).ids;
  }

  /** Exact inverse of encode() (no clean-up of spaces before punctuation, special tokens kept). */
  decode(ids: readonly number[]): string {
    return this.tokenizer.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  /** Whether the tokenizer has this id (the model's vocabulary can be larger: rows padded past the tokenizer's). */
  hasToken(id: number): boolean {
    return this.tokenizer.id_to_token(id) !== undefined;
  }
}
