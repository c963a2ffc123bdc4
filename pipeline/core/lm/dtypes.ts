/**
 * Weight formats of a Hugging Face ONNX model directory, named as Hugging Face's ONNX repositories (and
 * Transformers.js's `dtype` option) name the files under onnx/. Isomorphic: the CLI's `--dtype` and the web app's
 * `?dtype=` read the same table.
 */
export const DTYPE_FILES = {
  fp32: 'model.onnx',
  fp16: 'model_fp16.onnx',
  q8: 'model_quantized.onnx',
  q4: 'model_q4.onnx',
} as const;
export type Dtype = keyof typeof DTYPE_FILES;
export const DTYPES = Object.keys(DTYPE_FILES) as Dtype[];
export const isDtype = (x: unknown): x is Dtype => typeof x === 'string' && x in DTYPE_FILES;
