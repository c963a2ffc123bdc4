/**
 * A model folder the user opened from disk (a directory input or a dropped folder), in the Hugging Face layout:
 * config.json, tokenizer.json, [tokenizer_config.json], onnx/model*.onnx [+ model*.onnx_data]. Pure: paths in, the
 * dtypes the folder offers (the same names as `?dtype=` and the CLI's `--dtype`) or one line saying what is missing.
 */
import { DTYPE_FILES, DTYPES, type Dtype } from '../../pipeline/core/lm/dtypes.ts';

/** One file of the folder: its path inside the folder ("onnx/model_q4f16.onnx") and the File itself. */
export interface FolderFile {
  path: string;
  file: File;
}

/** Files of older exports that hold the decoder in another layout (as pipeline/node/model/load-model.ts names them). */
const LEGACY = /^onnx\/decoder(_with_past)?_model(_merged)?(_\w+)?\.onnx$/;

/**
 * Paths inside the folder from the browser's own: a directory input's `webkitRelativePath` ("SmolLM2/onnx/model.onnx")
 * starts with the folder's name, which is dropped; so is a common prefix left by a drop (a folder inside the folder).
 * Returns the folder's name and the files by inner path.
 */
export function folderFiles(entries: readonly { relativePath: string; file: File }[]): { name: string; files: FolderFile[] } {
  const split = entries.map((e) => ({ parts: e.relativePath.split('/').filter(Boolean), file: e.file }));
  // The folder is the deepest directory holding config.json (a drop of a parent folder, or one level up, still works).
  const config = split.filter((e) => e.parts.at(-1) === 'config.json').sort((a, b) => a.parts.length - b.parts.length)[0];
  const depth = config ? config.parts.length - 1 : 1;
  const prefix = config ? config.parts.slice(0, depth).join('/') : split[0]?.parts[0] ?? '';
  const files = split
    .filter((e) => e.parts.length > depth && e.parts.slice(0, depth).join('/') === prefix)
    .map((e) => ({ path: e.parts.slice(depth).join('/'), file: e.file }));
  return { name: prefix.split('/').at(-1) || 'model', files };
}

/** The dtypes whose onnx/ file the folder has, in DTYPES order (fp32 first). */
export function folderDtypes(paths: readonly string[]): Dtype[] {
  const have = new Set(paths);
  return DTYPES.filter((d) => have.has(`onnx/${DTYPE_FILES[d]}`));
}

/** The dtype to load: the one asked for when the folder has it, else fp32, else the first the folder has. */
export function pickDtype(available: readonly Dtype[], wanted: Dtype | null): Dtype | undefined {
  if (wanted && available.includes(wanted)) return wanted;
  return available.includes('fp32') ? 'fp32' : available[0];
}

/**
 * Null when the folder can be loaded; otherwise one line naming what it lacks, what it has, and what would work.
 */
export function folderProblem(name: string, paths: readonly string[]): string | null {
  const have = new Set(paths);
  const missing = ['config.json', 'tokenizer.json'].filter((p) => !have.has(p));
  const dtypes = folderDtypes(paths);
  if (dtypes.length === 0) {
    const legacy = paths.filter((p) => LEGACY.test(p));
    missing.push(
      legacy.length > 0
        ? `onnx/model*.onnx (it has only the legacy ${legacy.join(', ')} of older exports, which this runtime does not read; ` +
            'use a revision with onnx/model.onnx, or re-export with optimum-cli export onnx --task text-generation-with-past)'
        : `onnx/model*.onnx (one of ${Object.values(DTYPE_FILES).join(', ')})`,
    );
  }
  if (missing.length === 0) return null;
  const listing = paths.length === 0 ? 'no files' : `${paths.slice(0, 8).join(', ')}${paths.length > 8 ? `, … (${paths.length} files)` : ''}`;
  return `folder "${name}" is not a Hugging Face ONNX causal-LM folder: missing ${missing.join(', ')}; it has ${listing}`;
}
