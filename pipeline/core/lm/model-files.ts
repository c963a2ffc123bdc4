/**
 * The platform-free part of loading a Hugging Face ONNX causal-LM folder, shared by the CLI (node/model/load-model.ts: a
 * directory or the local Hugging Face cache) and the web worker (web/src/worker.ts: a URL or a folder picked from
 * disk): which ONNX file a dtype names, which JSON files are read, and the refusals (an unknown dtype, a model that
 * is not a decoder-only causal LM). Only the bytes and the ONNX Runtime sessions differ by platform.
 */
import { DTYPE_FILES, DTYPES, externalDataFiles, isDtype, type Dtype } from './dtypes.ts';

/** How a platform reads the folder's JSON files: parsed, or undefined when `optional` and absent; throws otherwise. */
export interface ModelJsonFiles {
  json(path: string, optional?: boolean): Promise<Record<string, unknown> | undefined>;
}

/** What the folder says about the model, before any ONNX byte is read. Paths are relative to the folder. */
export interface ModelDescription {
  dtype: Dtype;
  /** "onnx/model.onnx", "onnx/model_q4f16.onnx", … */
  file: string;
  /** The external-data files config.json announces for `file` ("onnx/model_q4f16.onnx_data"), fetched by name. */
  externalData: string[];
  config: Record<string, unknown>;
  tokenizer: Record<string, unknown>;
  tokenizerConfig?: Record<string, unknown>;
  /** Its eos_token_id ends generation too (CausalLM.eosIds). */
  generationConfig?: Record<string, unknown>;
}

/** The ONNX file of `dtype` ("onnx/model_q4f16.onnx"); an unknown dtype is refused in one line. */
export function onnxFileOf(dtype: string): string {
  if (!isDtype(dtype)) throw new Error(`unknown dtype ${dtype}; expected one of ${DTYPES.join(', ')}`);
  return `onnx/${DTYPE_FILES[dtype]}`;
}

/** Causal-LM architectures by their Hugging Face class-name suffix. */
const CAUSAL_LM = /(ForCausalLM|LMHeadModel)$/;

/** Why config.json does not describe a decoder-only causal LM, or null when it does (or does not say). */
export function notCausalLM(config: Record<string, unknown>): string | null {
  const architectures = Array.isArray(config.architectures) ? (config.architectures as unknown[]).map(String) : [];
  if (config.is_encoder_decoder === true || (architectures.length > 0 && !architectures.some((a) => CAUSAL_LM.test(a)))) {
    return `config.json describes ${architectures.join(', ') || `model_type ${String(config.model_type)}`}, not a decoder-only causal LM (…ForCausalLM / …LMHeadModel)`;
  }
  return null;
}

/**
 * Reads config.json, tokenizer.json and the optional tokenizer_config.json and generation_config.json, and refuses
 * what cannot load. `refuse` turns a problem into the platform's error (the CLI adds the folder's listing).
 */
export async function describeModel(
  files: ModelJsonFiles,
  dtype: string = 'fp32',
  refuse: (problem: string) => never = (problem) => {
    throw new Error(problem);
  },
): Promise<ModelDescription> {
  const file = onnxFileOf(dtype);
  const [config, tokenizer, tokenizerConfig, generationConfig] = await Promise.all([
    files.json('config.json'),
    files.json('tokenizer.json'),
    files.json('tokenizer_config.json', true),
    files.json('generation_config.json', true),
  ]);
  const why = notCausalLM(config!);
  if (why) refuse(why);
  const externalData = externalDataFiles(config!, file.slice('onnx/'.length)).map((f) => `onnx/${f}`);
  return { dtype: dtype as Dtype, file, externalData, config: config!, tokenizer: tokenizer!, tokenizerConfig, generationConfig };
}
