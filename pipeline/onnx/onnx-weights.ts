/**
 * The inverse of gpt2-graph.ts for the weights: reads a GPT-2 ONNX file written by `buildGpt2Onnx` back into a
 * `Gpt2Config` (from config.json) and `Gpt2Weights` (the `transformer.*` float32 initializers), so a trainer can
 * continue from an exported model (`toolformer finetune`). Isomorphic (no node:*).
 */
import onnxProto from 'onnx-proto';
import { checkGpt2Weights, gpt2WeightShapes, type Gpt2Config, type Gpt2Weights } from './gpt2-weights.ts';

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
  const model = onnxProto.onnx.ModelProto.decode(bytes);
  const shapes = gpt2WeightShapes(config);
  const weights: Gpt2Weights = new Map();
  for (const init of model.graph?.initializer ?? []) {
    const name = (init.name ?? '').replace(/^transformer\./, '');
    const shape = shapes.get(name);
    if (!shape || !init.name?.startsWith('transformer.')) continue;
    if (init.dataType !== FLOAT) throw new Error(`onnx: ${init.name} is not float32`);
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
  checkGpt2Weights(config, weights);
  return { config, weights };
}
