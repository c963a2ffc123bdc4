/**
 * The ONNX files of a Hugging Face model directory by dtype, as the repositories and Transformers.js v4 name them
 * (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING: "" _fp16 _quantized _int8 _uint8 _q4 _q4f16 _bnb4). The variant
 * writers (../onnx-export/replicas.ts) and the runtime (core/lm/dtypes.ts re-exports it) read this one table.
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
