/**
 * The project's model layouts as llama.cpp GGUF architectures: tensor names, dims and the metadata keys its loader
 * reads, following convert_hf_to_gguf.py (conversion/gpt2.py, llama.py, qwen2.py of the llama.cpp node-llama-cpp
 * 3.21.1 bundles).
 *
 * - GPT-2 (`gpt2`): Conv1D weights [in, out] are transposed to llama.cpp's [out, in] rows; the LM head is tied, so
 *   no `output` tensor is written (llama.cpp duplicates `token_embd`).
 * - Llama (`llama`): q/k rows are permuted from Hugging Face's rotate-half RoPE layout to llama.cpp's interleaved
 *   pairs (LlamaModel.permute: per head, reshape [2, D/2] → [D/2, 2]).
 * - Qwen2 (`qwen2`): no permutation (llama.cpp runs it with NEOX RoPE, the rotate-half form); q/k/v biases.
 */
import type { Gpt2Config, Gpt2Weights } from '../onnx-export/gpt2-weights.ts';
import type { LlamaConfig, LlamaWeights } from '../onnx-export/llama-weights.ts';
import { f32, str, u32, type GgufValue } from './gguf-writer.ts';

/** One tensor of a layout: GGUF name, dims (fastest first) and its row-major float32 values. */
export interface LayoutTensor {
  name: string;
  dims: number[];
  values: () => Float32Array;
}

export interface GgufLayout {
  architecture: 'gpt2' | 'llama' | 'qwen2';
  metadata: Map<string, GgufValue>;
  tensors: LayoutTensor[];
  vocabSize: number;
}

/** [rows, cols] row-major → [cols, rows] row-major. */
export function transpose(values: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(values.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = values[r * cols + c];
  return out;
}

/**
 * convert_hf_to_gguf's LlamaModel.permute on the rows of a [heads·D, cols] projection: within each head, row
 * t·(D/2) + j moves to 2j + t (rotate-half halves → interleaved pairs).
 */
export function permuteRope(values: Float32Array, heads: number, cols: number): Float32Array {
  const rows = values.length / cols;
  const D = rows / heads;
  const half = D / 2;
  const out = new Float32Array(values.length);
  for (let h = 0; h < heads; h++) {
    for (let t = 0; t < 2; t++) {
      for (let j = 0; j < half; j++) {
        const from = (h * D + t * half + j) * cols;
        out.set(values.subarray(from, from + cols), (h * D + 2 * j + t) * cols);
      }
    }
  }
  return out;
}

const weightOf = (weights: Map<string, Float32Array>, name: string) => () => {
  const w = weights.get(name);
  if (!w) throw new Error(`gguf: the model has no weight ${name}`);
  return w;
};

export function gpt2Layout(config: Gpt2Config, weights: Gpt2Weights): GgufLayout {
  const { vocabSize: V, nPositions: P, nEmbd: C, nLayer, nHead } = config;
  const same = (name: string, from: string, dims: number[]): LayoutTensor => ({ name, dims, values: weightOf(weights, from) });
  // A Conv1D weight [inDim, outDim] → llama.cpp rows [outDim, inDim], dims [inDim, outDim].
  const conv = (name: string, from: string, inDim: number, outDim: number): LayoutTensor => ({
    name, dims: [inDim, outDim], values: () => transpose(weightOf(weights, from)(), inDim, outDim),
  });
  const tensors: LayoutTensor[] = [same('token_embd.weight', 'wte.weight', [C, V]), same('position_embd.weight', 'wpe.weight', [C, P])];
  for (let i = 0; i < nLayer; i++) {
    const h = `h.${i}`;
    const b = `blk.${i}`;
    tensors.push(
      same(`${b}.attn_norm.weight`, `${h}.ln_1.weight`, [C]), same(`${b}.attn_norm.bias`, `${h}.ln_1.bias`, [C]),
      conv(`${b}.attn_qkv.weight`, `${h}.attn.c_attn.weight`, C, 3 * C), same(`${b}.attn_qkv.bias`, `${h}.attn.c_attn.bias`, [3 * C]),
      conv(`${b}.attn_output.weight`, `${h}.attn.c_proj.weight`, C, C), same(`${b}.attn_output.bias`, `${h}.attn.c_proj.bias`, [C]),
      same(`${b}.ffn_norm.weight`, `${h}.ln_2.weight`, [C]), same(`${b}.ffn_norm.bias`, `${h}.ln_2.bias`, [C]),
      conv(`${b}.ffn_up.weight`, `${h}.mlp.c_fc.weight`, C, 4 * C), same(`${b}.ffn_up.bias`, `${h}.mlp.c_fc.bias`, [4 * C]),
      conv(`${b}.ffn_down.weight`, `${h}.mlp.c_proj.weight`, 4 * C, C), same(`${b}.ffn_down.bias`, `${h}.mlp.c_proj.bias`, [C]),
    );
  }
  tensors.push(same('output_norm.weight', 'ln_f.weight', [C]), same('output_norm.bias', 'ln_f.bias', [C]));
  const metadata = new Map<string, GgufValue>([
    ['gpt2.context_length', u32(P)],
    ['gpt2.embedding_length', u32(C)],
    ['gpt2.feed_forward_length', u32(4 * C)],
    ['gpt2.block_count', u32(nLayer)],
    ['gpt2.attention.head_count', u32(nHead)],
    ['gpt2.attention.layer_norm_epsilon', f32(config.layerNormEpsilon)],
  ]);
  return { architecture: 'gpt2', metadata, tensors, vocabSize: V };
}

export function llamaLayout(config: LlamaConfig, weights: LlamaWeights): GgufLayout {
  const { modelType: arch, vocabSize: V, hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = config;
  if (arch === 'llama' && config.attentionBias) throw new Error('gguf: a Llama model with attention biases is not a layout this converter writes');
  const permute = arch === 'llama';
  const linear = (name: string, from: string, inDim: number, outDim: number, ropeHeads = 0): LayoutTensor => ({
    name, dims: [inDim, outDim],
    values: () => (permute && ropeHeads > 0 ? permuteRope(weightOf(weights, from)(), ropeHeads, inDim) : weightOf(weights, from)()),
  });
  const vector = (name: string, from: string, n: number): LayoutTensor => ({ name, dims: [n], values: weightOf(weights, from) });
  const tensors: LayoutTensor[] = [linear('token_embd.weight', 'model.embed_tokens.weight', C, V)];
  for (let i = 0; i < config.numLayers; i++) {
    const l = `model.layers.${i}`;
    const b = `blk.${i}`;
    tensors.push(vector(`${b}.attn_norm.weight`, `${l}.input_layernorm.weight`, C));
    for (const [p, heads] of [['q', H], ['k', KV], ['v', KV]] as const) {
      tensors.push(linear(`${b}.attn_${p}.weight`, `${l}.self_attn.${p}_proj.weight`, C, heads * D, p === 'v' ? 0 : heads));
      if (config.attentionBias) tensors.push(vector(`${b}.attn_${p}.bias`, `${l}.self_attn.${p}_proj.bias`, heads * D));
    }
    tensors.push(
      linear(`${b}.attn_output.weight`, `${l}.self_attn.o_proj.weight`, H * D, C),
      vector(`${b}.ffn_norm.weight`, `${l}.post_attention_layernorm.weight`, C),
      linear(`${b}.ffn_gate.weight`, `${l}.mlp.gate_proj.weight`, C, I),
      linear(`${b}.ffn_up.weight`, `${l}.mlp.up_proj.weight`, C, I),
      linear(`${b}.ffn_down.weight`, `${l}.mlp.down_proj.weight`, I, C),
    );
  }
  tensors.push(vector('output_norm.weight', 'model.norm.weight', C));
  if (!config.tieWordEmbeddings) tensors.push(linear('output.weight', 'lm_head.weight', C, V));
  const metadata = new Map<string, GgufValue>([
    [`${arch}.context_length`, u32(config.maxPositions)],
    [`${arch}.embedding_length`, u32(C)],
    [`${arch}.feed_forward_length`, u32(I)],
    [`${arch}.block_count`, u32(config.numLayers)],
    [`${arch}.attention.head_count`, u32(H)],
    [`${arch}.attention.head_count_kv`, u32(KV)],
    [`${arch}.attention.key_length`, u32(D)],
    [`${arch}.attention.value_length`, u32(D)],
    [`${arch}.attention.layer_norm_rms_epsilon`, f32(config.rmsNormEps)],
    [`${arch}.rope.freq_base`, f32(config.ropeTheta)],
    ...(arch === 'llama' ? ([[`llama.vocab_size`, u32(V)], [`llama.rope.dimension_count`, u32(D)]] as [string, GgufValue][]) : []),
  ]);
  return { architecture: arch, metadata, tensors, vocabSize: V };
}

/** `general.*` entries every file starts with. */
export function generalMetadata(architecture: string, name: string, fileType: number): Map<string, GgufValue> {
  return new Map<string, GgufValue>([
    ['general.architecture', str(architecture)],
    ['general.name', str(name)],
    ['general.file_type', u32(fileType)],
    ['general.quantization_version', u32(2)],
    ['general.alignment', u32(32)],
  ]);
}
