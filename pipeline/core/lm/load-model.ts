/**
 * The one model-loading sequence, for Node and the browser alike: describe the folder (model-files.ts: which ONNX
 * file the dtype names, the JSON files, the refusals), read the ONNX file and say where its weights are through the
 * platform's ModelSource, create the OrtCausalLM on the platform's ONNX Runtime. What differs by platform is only
 * the source (Node: a directory, the graph read without its weights; web: a URL or files opened from disk) and the
 * runtime module, both passed in.
 */
import { describeModel, type ModelDescription, type ModelJsonFiles } from './model-files.ts';
import { OrtCausalLM, type OrtCausalLMOptions, type OrtModule } from './ort-lm.ts';

/** Progress of a file read, in bytes. */
export type ReadProgress = (done: number, total: number) => void;

/**
 * Where a model folder's files come from (the port the platform implements; paths are relative to the folder).
 * Node: pipeline/node/model/load-model.ts (a directory on disk); web: web/src/model-source.ts (a URL, or files from disk).
 */
export interface ModelSource extends ModelJsonFiles {
  /** Recorded as CausalLM.id: the path or name the user gave, a URL, or "disk:<folder>". */
  readonly id: string;
  /**
   * The ONNX file `file` ("onnx/model_q4.onnx") as the runtime is to get it, and how the runtime finds its weights:
   * `externalData` are the external-data files model-files.ts read from config.json ("onnx/model_q4.onnx_data").
   */
  onnx(file: string, externalData: readonly string[], onProgress?: ReadProgress): Promise<OnnxFile>;
}

/** An ONNX file ready for InferenceSession.create. */
export interface OnnxFile {
  /** The graph's bytes (with its weights, or with them left as external-data references the runtime resolves). */
  model: Uint8Array;
  /** Session options that let the runtime read the weights (an external-data folder, or the data themselves). */
  sessionOptions: Record<string, unknown>;
  /** OrtCausalLMOptions.weightsFile: the runtime can also read `model` as an external-data file of this name. */
  weightsFile?: string;
}

export interface LoadOptions {
  /** Transformers.js dtype name. @default "fp32" */
  dtype?: string;
  /** The platform's and device's session options (threads, execution providers); merged with the source's. */
  sessionOptions?: Record<string, unknown>;
  /** The LM's own options (batch limits, log-prob path, KV-cache location, hidden states). */
  lm?: Partial<Omit<OrtCausalLMOptions, 'id' | 'model' | 'file' | 'weightsFile' | 'config' | 'tokenizer' | 'tokenizerConfig' | 'generationConfig' | 'sessionOptions'>>;
  /** Reading the ONNX file `file` ("onnx/model.onnx"), in bytes. */
  onProgress?: (file: string, done: number, total: number) => void;
  /** Turns a problem into the platform's error (the CLI adds the folder's listing). @default throws it as it is */
  refuse?: (problem: string) => never;
  /** Looks at the graph before the session is made (Node: the int8 range warning). */
  inspect?: (model: ModelDescription, onnx: OnnxFile) => Promise<void>;
}

/** A loaded model and what its folder said about it. */
export interface LoadedOrtModel {
  lm: OrtCausalLM;
  model: ModelDescription;
}

/** Loads the model folder `source` describes onto the ONNX Runtime `ort` (onnxruntime-node or onnxruntime-web). */
export async function loadOrtModel(ort: OrtModule, source: ModelSource, options: LoadOptions = {}): Promise<LoadedOrtModel> {
  const model = await describeModel(source, options.dtype, options.refuse);
  const progress = options.onProgress;
  const onnx = await source.onnx(model.file, model.externalData, progress && ((done, total) => progress(model.file, done, total)));
  await options.inspect?.(model, onnx);
  const lm = await OrtCausalLM.create(ort, {
    id: source.id,
    model: onnx.model,
    file: model.file,
    weightsFile: onnx.weightsFile,
    config: model.config,
    tokenizer: model.tokenizer,
    tokenizerConfig: model.tokenizerConfig,
    generationConfig: model.generationConfig,
    sessionOptions: { ...options.sessionOptions, ...onnx.sessionOptions },
    ...options.lm,
  });
  return { lm, model };
}

/** `source` whose ONNX file is read once: a second load (another backend after a failed one) reuses the bytes. */
export function readOnce(source: ModelSource): ModelSource {
  const read = new Map<string, Promise<OnnxFile>>();
  return {
    id: source.id,
    json: (path, optional) => source.json(path, optional),
    onnx(file, externalData, onProgress) {
      let onnx = read.get(file);
      if (!onnx) read.set(file, (onnx = source.onnx(file, externalData, onProgress)));
      return onnx;
    },
  };
}
