/**
 * Writes a Llama-family model (model_type "llama" or "qwen2") in the Hugging Face ONNX layout that
 * Transformers.js and `loadModel` read offline: config.json with the fields both read (hidden_size,
 * num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim, max_position_embeddings, rope_theta,
 * rms_norm_eps, special ids), generation_config.json, tokenizer.json, tokenizer_config.json, onnx/model.onnx.
 *
 * Node only (writes files).
 */
import { writeModelDir, type ExportedFiles } from './export.ts';
import { buildLlamaOnnx } from './llama-graph.ts';
import type { LlamaConfig, LlamaWeights } from './llama-weights.ts';

export interface ExportLlamaOptions {
  config: LlamaConfig;
  weights: LlamaWeights;
  /** A `tokenizer.json` object whose `added_tokens` hold the special tokens named below. */
  tokenizer: Record<string, unknown>;
  /** Special token strings. `eos` may differ from `bos` (Qwen2: <|im_end|> ends a turn, <|endoftext|> pads). */
  special: { bos: string; eos: string; pad: string };
  /** Extra fields merged into config.json. */
  extra?: Record<string, unknown>;
}

export async function exportLlama(dir: string, options: ExportLlamaOptions): Promise<ExportedFiles> {
  const { config, weights, tokenizer, special, extra } = options;
  const added = (tokenizer.added_tokens ?? []) as { id: number; content: string }[];
  const id = (content: string) => {
    const token = added.find((t) => t.content === content);
    if (!token) throw new Error(`exportLlama: tokenizer.added_tokens has no "${content}" token`);
    if (token.id >= config.vocabSize) throw new Error(`exportLlama: "${content}" has id ${token.id}, outside vocabSize ${config.vocabSize}`);
    return token.id;
  };
  const [bos, eos, pad] = [id(special.bos), id(special.eos), id(special.pad)];
  const qwen = config.modelType === 'qwen2';

  const model = buildLlamaOnnx(config, weights);
  const configJson = {
    architectures: [qwen ? 'Qwen2ForCausalLM' : 'LlamaForCausalLM'],
    model_type: config.modelType,
    vocab_size: config.vocabSize,
    hidden_size: config.hiddenSize,
    intermediate_size: config.intermediateSize,
    num_hidden_layers: config.numLayers,
    num_attention_heads: config.numHeads,
    num_key_value_heads: config.numKvHeads,
    head_dim: config.headDim,
    max_position_embeddings: config.maxPositions,
    hidden_act: 'silu',
    rms_norm_eps: config.rmsNormEps,
    rope_theta: config.ropeTheta,
    rope_scaling: null,
    ...(qwen ? { use_sliding_window: false, sliding_window: null } : { attention_bias: config.attentionBias, mlp_bias: false }),
    tie_word_embeddings: config.tieWordEmbeddings,
    bos_token_id: bos,
    eos_token_id: eos,
    pad_token_id: pad,
    use_cache: true,
    torch_dtype: 'float32',
    'transformers.js_config': { dtype: 'fp32' },
    ...extra,
  };
  const tokenizerConfig = {
    tokenizer_class: qwen ? 'Qwen2Tokenizer' : 'GPT2Tokenizer',
    add_bos_token: false,
    add_prefix_space: false,
    bos_token: special.bos,
    eos_token: special.eos,
    pad_token: special.pad,
    unk_token: null,
    model_max_length: config.maxPositions,
    clean_up_tokenization_spaces: false,
  };
  const generationConfig = { bos_token_id: bos, eos_token_id: eos, pad_token_id: pad };
  await writeModelDir(dir, { config: configJson, generationConfig, tokenizer, tokenizerConfig, model });
  return { dir, modelBytes: model.length };
}
