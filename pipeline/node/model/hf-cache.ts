/**
 * Where a `--model` lives: a directory path, or a Hugging Face model id (`org/name`) already in the local Hugging
 * Face cache — never downloaded (the offline behaviour of `local_files_only`). The cache layout:
 *
 *   $HF_HUB_CACHE (default $HF_HOME/hub, HF_HOME default ~/.cache/huggingface)
 *     models--<org>--<name>/refs/main            the revision (a commit hash) that "main" points at
 *     models--<org>--<name>/snapshots/<revision>/ the files: config.json, tokenizer.json, onnx/model*.onnx, …
 *
 * `--dtype` picks the ONNX file as Hugging Face's ONNX repositories name the variants.
 */
import { readdir, stat } from 'node:fs/promises';
import { READ_CAPS, readBoundedFile } from '../../io/bounded-read.ts';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

import { DTYPE_FILES, DTYPES, type Dtype } from '../../core/lm/dtypes.ts';

export { DTYPE_FILES, DTYPES, type Dtype };

/** The hub cache directory: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
export function hubCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return resolve(env.HF_HUB_CACHE);
  return join(resolve(env.HF_HOME ?? join(homedir(), '.cache', 'huggingface')), 'hub');
}

const isDir = async (path: string) => (await stat(path).catch(() => null))?.isDirectory() ?? false;
const MODEL_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

export interface ResolvedModel {
  /** The directory holding config.json, tokenizer.json and onnx/ (it may not exist: the loader reports that). */
  dir: string;
  /** Set when `spec` was a model id found in the cache. */
  cache?: { id: string; revision: string };
  /** When `spec` looks like an id but is neither a directory nor cached: why, naming the cache and its models. */
  notInCache?: string;
}

/**
 * A directory path as it is; otherwise an `org/name` id looked up in the hub cache (refs/main → snapshot, or the
 * only snapshot). Throws a one-line error when the cached repository has no usable snapshot.
 */
export async function resolveModel(spec: string, env: NodeJS.ProcessEnv = process.env): Promise<ResolvedModel> {
  if (await isDir(spec)) return { dir: resolve(spec) };
  if (!MODEL_ID.test(spec)) return { dir: resolve(spec) }; // not an id: the loader reports the missing directory
  const hub = hubCacheDir(env);
  const repo = join(hub, `models--${spec.replace('/', '--')}`);
  if (!(await isDir(repo))) {
    const cached = (await readdir(hub).catch(() => [] as string[]))
      .filter((d) => d.startsWith('models--'))
      .map((d) => d.slice('models--'.length).replace('--', '/'))
      .sort();
    const has = cached.length ? `it holds ${cached.join(', ')}` : (await isDir(hub)) ? 'it holds no models' : 'it does not exist';
    return {
      dir: resolve(spec),
      notInCache: `${spec} is not in the Hugging Face cache at ${hub} either (${has}; set HF_HOME or HF_HUB_CACHE; nothing is downloaded)`,
    };
  }
  const snapshots = (await readdir(join(repo, 'snapshots')).catch(() => [] as string[])).sort();
  const ref = refText(join(repo, 'refs', 'main'));
  const revision = ref && snapshots.includes(ref) ? ref : snapshots.length === 1 ? snapshots[0] : '';
  if (!revision) {
    const why = ref ? `refs/main is ${ref}, which has no snapshot` : 'no refs/main';
    throw new Error(`model ${spec} in ${repo}: ${why}; snapshots: ${snapshots.join(', ') || 'none'}`);
  }
  return { dir: join(repo, 'snapshots', revision), cache: { id: spec, revision } };
}

/** "config.json, tokenizer.json, onnx/{model.onnx, model_q4.onnx}": what a model directory holds, for errors. */
export async function describeDir(dir: string): Promise<string> {
  const top = (await readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (top.length === 0) return 'nothing';
  const parts: string[] = [];
  for (const entry of top) {
    if (!entry.isDirectory()) parts.push(entry.name);
    else if (entry.name === 'onnx') parts.push(`onnx/{${(await readdir(join(dir, 'onnx'))).sort().join(', ')}}`);
    else parts.push(`${entry.name}/`);
  }
  return parts.join(', ');
}

/** The dtypes whose file exists under `dir`/onnx. */
export async function availableDtypes(dir: string): Promise<Dtype[]> {
  const files = await readdir(join(dir, 'onnx')).catch(() => [] as string[]);
  return DTYPES.filter((d) => files.includes(DTYPE_FILES[d]));
}

/** A cache's refs/main (a 40-character revision), read under a 4 KiB cap; '' when absent or not a small regular file. */
function refText(path: string): string {
  try {
    return readBoundedFile(path, path, READ_CAPS.ref).toString('utf8').trim();
  } catch {
    return '';
  }
}
