/**
 * Weight formats of a Hugging Face ONNX model directory, named as Hugging Face's ONNX repositories and
 * Transformers.js v4's `dtype` option name the files under onnx/ (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING).
 * Isomorphic: the CLI's `--dtype` and the web app's `?dtype=` read the same table. Whether a file keeps a float16
 * KV cache or float16 logits is read from the graph itself (ort-graph-io.ts), never from its name.
 */
export const DTYPE_FILES = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  int8: 'model_int8.onnx',
  uint8: 'model_uint8.onnx',
  q4: 'model_q4.onnx',
  q4f16: 'model_q4f16.onnx',
  bnb4: 'model_bnb4.onnx',
} as const;
export type Dtype = keyof typeof DTYPE_FILES;
export const DTYPES = Object.keys(DTYPE_FILES) as Dtype[];
export const isDtype = (x: unknown): x is Dtype => typeof x === 'string' && Object.hasOwn(DTYPE_FILES, x);
