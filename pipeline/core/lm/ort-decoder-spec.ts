/**
 * What the runtime needs to know about a Hugging Face decoder-only model, read from its config.json:
 * the KV-cache geometry and the special ids. GPT-2 names its fields n_layer / n_head / n_embd / n_positions;
 * Llama-family models (SmolLM2, Qwen2, …) use num_hidden_layers / num_key_value_heads / head_dim /
 * max_position_embeddings. Pure and isomorphic.
 */
import type { OrtSession } from './ort-runtime.ts';
export interface DecoderSpec {
  numLayers: number;
  /** Heads in the KV cache (fewer than the attention heads under grouped-query attention). */
  numKvHeads: number;
  headDim: number;
  /** Longest sequence the model accepts. */
  maxLength: number;
  /** Ids that end generation: config.json's and generation_config.json's eos_token_id (each one id or a list). */
  eosTokenIds: number[];
  /** Id used for right padding when scoring; any id works since padded positions are masked and never read. */
  padTokenId: number;
}

type Config = Record<string, unknown>;

const num = (config: Config, ...keys: string[]): number | undefined => {
  for (const key of keys) {
    const v = config[key];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
};

/** @param generationConfig generation_config.json, when the model has one: its eos_token_id also ends generation. */
export function decoderSpecFromConfig(config: Config, generationConfig?: Config): DecoderSpec {
  const isGpt2Style = config.model_type === 'gpt2' || typeof config.n_layer === 'number';
  const numLayers = isGpt2Style ? num(config, 'n_layer') : num(config, 'num_hidden_layers');
  const numHeads = isGpt2Style ? num(config, 'n_head') : num(config, 'num_attention_heads');
  const hidden = isGpt2Style ? num(config, 'n_embd') : num(config, 'hidden_size');
  const numKvHeads = isGpt2Style ? numHeads : (num(config, 'num_key_value_heads') ?? numHeads);
  const headDim = num(config, 'head_dim') ?? (hidden !== undefined && numHeads ? hidden / numHeads : undefined);
  const maxLength = isGpt2Style ? num(config, 'n_positions', 'n_ctx') : num(config, 'max_position_embeddings');

  const missing = Object.entries({ numLayers, numKvHeads, headDim, maxLength })
    .filter(([, v]) => v === undefined || !Number.isInteger(v) || v <= 0)
    .map(([k]) => k);
  if (missing.length > 0) {
    const fields = isGpt2Style
      ? 'n_layer, n_head, n_embd, n_positions'
      : 'num_hidden_layers, num_attention_heads, num_key_value_heads, hidden_size or head_dim, max_position_embeddings';
    throw new Error(`config.json (model_type ${String(config.model_type)}): cannot derive ${missing.join(', ')}; expected ${fields}`);
  }

  const ids = (eos: unknown): number[] =>
    Array.isArray(eos) ? eos.filter((v): v is number => Number.isInteger(v)) : Number.isInteger(eos) ? [eos as number] : [];
  const eosTokenIds = [...new Set([...ids(config.eos_token_id), ...ids(generationConfig?.eos_token_id)])];
  const padTokenId = num(config, 'pad_token_id') ?? eosTokenIds[0] ?? 0;
  return { numLayers: numLayers!, numKvHeads: numKvHeads!, headDim: headDim!, maxLength: maxLength!, eosTokenIds, padTokenId };
}

/** Throws when the ONNX graph does not have the decoder inputs/outputs that config.json implies. */
export function checkSession(session: OrtSession, spec: DecoderSpec, file = 'onnx/model.onnx'): void {
  const problems: string[] = [];
  for (const name of ['input_ids', 'attention_mask']) if (!session.inputNames.includes(name)) problems.push(`no input ${name}`);
  if (!session.outputNames.includes('logits')) problems.push('no output logits');
  for (let i = 0; i < spec.numLayers; i++) {
    for (const kv of ['key', 'value']) {
      if (!session.inputNames.includes(`past_key_values.${i}.${kv}`)) problems.push(`no input past_key_values.${i}.${kv}`);
      if (!session.outputNames.includes(`present.${i}.${kv}`)) problems.push(`no output present.${i}.${kv}`);
    }
  }
  if (session.inputNames.includes(`past_key_values.${spec.numLayers}.key`)) {
    problems.push(`the graph has more than the ${spec.numLayers} cache layers config.json declares`);
  }
  const meta = session.inputMetadata?.find((m) => m.name === 'past_key_values.0.key');
  if (meta?.isTensor && meta.shape) {
    if (meta.type !== 'float32' && meta.type !== 'float16') problems.push(`cache type ${meta.type} (float32 or float16 are supported)`);
    const [, heads, , dim] = meta.shape;
    if (typeof heads === 'number' && heads !== spec.numKvHeads) problems.push(`cache has ${heads} heads, config says ${spec.numKvHeads}`);
    if (typeof dim === 'number' && dim !== spec.headDim) problems.push(`cache head_dim ${dim}, config says ${spec.headDim}`);
  }
  if (problems.length > 0) {
    throw new Error(`${file} is not a decoder with a KV cache in the Optimum layout: ${problems.join('; ')}`);
  }
}
