/**
 * Weight formats of a Hugging Face ONNX model directory, named as Hugging Face's ONNX repositories and
 * Transformers.js v4's `dtype` option name the files under onnx/ (utils/dtypes.js DEFAULT_DTYPE_SUFFIX_MAPPING).
 * Isomorphic: the CLI's `--dtype` and the web app's `?dtype=` read the same table. Whether a file keeps a float16
 * KV cache or float16 logits is read from the graph itself (ort-graph-io.ts), never from its name.
 */
import { DTYPE_FILES, type Dtype } from '../../onnx/dtype-files.ts';

export { DTYPE_FILES, type Dtype };
export const DTYPES = Object.keys(DTYPE_FILES) as Dtype[];
export const isDtype = (x: unknown): x is Dtype => typeof x === 'string' && Object.hasOwn(DTYPE_FILES, x);

/**
 * The external-data files of `file` (e.g. "model_q4f16.onnx") that config.json announces, as Transformers.js v4
 * reads `transformers.js_config.use_external_data_format` (utils/model-loader.js): true or a count, globally or per
 * file (by full name or base name); chunk i > 0 is `<file>_data_<i>`. The browser must fetch them by name.
 */
export function externalDataFiles(config: Record<string, unknown>, file: string): string[] {
  const setting = (config['transformers.js_config'] as Record<string, unknown> | undefined)?.use_external_data_format;
  const base = file.replace(/\.onnx$/, '');
  const value = setting && typeof setting === 'object' ? ((setting as Record<string, unknown>)[file] ?? (setting as Record<string, unknown>)[base]) : setting;
  const chunks = value === true ? 1 : typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
  return Array.from({ length: chunks }, (_, i) => `${file}_data${i === 0 ? '' : `_${i}`}`);
}
