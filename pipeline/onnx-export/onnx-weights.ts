/**
 * The inverse of gpt2-graph.ts and llama-graph.ts for the weights: reads a GPT-2 ONNX file written by `buildGpt2Onnx`
 * back into a `Gpt2Config` (from config.json) and `Gpt2Weights` (the `transformer.*` float32 initializers), so a
 * trainer can continue from an exported model (`toolformer finetune`), and a Llama / Qwen2 one written by
 * `buildLlamaOnnx` into `LlamaConfig` and `LlamaWeights` (`toolformer convert --to gguf`). Isomorphic (no node:*).
 */
import onnxProto from 'onnx-proto';
import { checkGpt2Weights, gpt2WeightShapes, type Gpt2Config, type Gpt2Weights } from './gpt2-weights.ts';
import { checkLlamaWeights, llamaWeightShapes, type LlamaConfig, type LlamaWeights } from './llama-weights.ts';

const FLOAT = 1;

/** config.json (HF GPT-2 fields) → Gpt2Config. */
export function gpt2ConfigFromJson(json: Record<string, unknown>): Gpt2Config {
  const n = (k: string): number => {
    const v = json[k];
    if (typeof v !== 'number') throw new Error(`config.json: ${k} must be a number`);
    return v;
  };
  return {
    vocabSize: n('vocab_size'), nPositions: n('n_positions'), nEmbd: n('n_embd'), nLayer: n('n_layer'), nHead: n('n_head'),
    layerNormEpsilon: typeof json.layer_norm_epsilon === 'number' ? json.layer_norm_epsilon : 1e-5,
  };
}

export function readGpt2Onnx(bytes: Uint8Array, configJson: Record<string, unknown>): { config: Gpt2Config; weights: Gpt2Weights } {
  const config = gpt2ConfigFromJson(configJson);
  // The GPT-2 graph names its weights `transformer.<name>`; other initializers (constants) are skipped.
  const weights = readFloatInitializers(bytes, gpt2WeightShapes(config), (name) => (name.startsWith('transformer.') ? name.slice('transformer.'.length) : undefined));
  checkGpt2Weights(config, weights);
  return { config, weights };
}

/** config.json (HF Llama / Qwen2 fields, as export-llama.ts writes them) → LlamaConfig. */
export function llamaConfigFromJson(json: Record<string, unknown>): LlamaConfig {
  const n = (k: string, fallback?: number): number => {
    const v = json[k] ?? fallback;
    if (typeof v !== 'number') throw new Error(`config.json: ${k} must be a number`);
    return v;
  };
  const modelType = json.model_type;
  if (modelType !== 'llama' && modelType !== 'qwen2') throw new Error(`config.json: model_type ${JSON.stringify(modelType)} is not llama or qwen2`);
  const hiddenSize = n('hidden_size');
  const numHeads = n('num_attention_heads');
  return {
    modelType, vocabSize: n('vocab_size'), hiddenSize, intermediateSize: n('intermediate_size'), numLayers: n('num_hidden_layers'),
    numHeads, numKvHeads: n('num_key_value_heads', numHeads), headDim: n('head_dim', hiddenSize / numHeads),
    maxPositions: n('max_position_embeddings'), rmsNormEps: n('rms_norm_eps', 1e-6), ropeTheta: n('rope_theta', 10000),
    attentionBias: modelType === 'qwen2' || json.attention_bias === true, tieWordEmbeddings: json.tie_word_embeddings !== false,
  };
}

/** A Llama / Qwen2 ONNX file written by `buildLlamaOnnx` (initializers under their Hugging Face names) → config and weights. */
export function readLlamaOnnx(bytes: Uint8Array, configJson: Record<string, unknown>): { config: LlamaConfig; weights: LlamaWeights } {
  const config = llamaConfigFromJson(configJson);
  const weights = readFloatInitializers(bytes, llamaWeightShapes(config), (name) => name);
  checkLlamaWeights(config, weights);
  return { config, weights };
}

/**
 * The float32 initializers of an ONNX model whose `weightName(initializer name)` is in `shapes`, checked against
 * their shapes. Weights stored outside the file (external data) are refused: this reads one file's bytes.
 */
function readFloatInitializers(bytes: Uint8Array, shapes: Map<string, number[]>, weightName: (name: string) => string | undefined): Map<string, Float32Array> {
  const model = onnxProto.onnx.ModelProto.decode(bytes);
  const weights = new Map<string, Float32Array>();
  for (const init of model.graph?.initializer ?? []) {
    const name = weightName(init.name ?? '');
    const shape = name === undefined ? undefined : shapes.get(name);
    if (!shape || name === undefined) continue;
    if (init.dataType !== FLOAT) throw new Error(`onnx: ${init.name} is not float32`);
    if ((init.externalData ?? []).length > 0) throw new Error(`onnx: ${init.name} is stored as external data; convert reads weights held inside model.onnx`);
    const dims = (init.dims ?? []).map(Number);
    if (dims.join() !== shape.join()) throw new Error(`onnx: ${init.name} has dims [${dims}], config.json implies [${shape}]`);
    let data: Float32Array;
    if (init.rawData && init.rawData.length > 0) {
      const raw = init.rawData;
      data = new Float32Array(raw.byteLength / 4);
      new Uint8Array(data.buffer).set(raw);
    } else data = Float32Array.from(init.floatData ?? []);
    weights.set(name, data);
  }
  return weights;
}
