/**
 * The probes' verdicts cached across runs (core/stages/probe-cache.ts says what the key holds). One small JSON file per
 * key in the user's cache directory, as hf-cache.ts finds the Hugging Face one:
 *
 *   $TOOLFORMER_CACHE (default $XDG_CACHE_HOME/toolformer, XDG_CACHE_HOME default ~/.cache)
 *     probe-verdicts/<key>.json     {probeVersion, key, verdicts}
 *
 * Not beside the model: a Hugging Face snapshot is the hub's, and may be read-only. A file that is damaged, too big or
 * written for something else is reported in one line and ignored (the probes run again and replace it); a cache
 * directory that cannot be written is reported and the run goes on. `--no-probe-cache` neither reads nor writes.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { cachedOrBuilt, NO_CACHE } from '../../core/cache.ts';
import { onnxFileOf } from '../../core/lm/model-files.ts';
import type { AnnotateConfig } from '../../core/config.ts';
import type { ProbeOutcome, RunFlags } from '../../core/run-plan.ts';
import { MAX_PROBE_CACHE_BYTES, type ProbeCacheNote, probeCacheRecord, probeKeyInputs, readProbeCacheRecord } from '../../core/stages/probe-cache.ts';
import type { PipelineParts } from '../../core/stages/work.ts';
import { HASH_PIECE, hashFile } from '../system/file-hash.ts';
import type { Dtype } from '../model/hf-cache.ts';
import { packageVersions } from '../system/package-versions.ts';
import { computeProbes, probeLines } from './run-probes.ts';
import { fileCache } from '../system/file-cache.ts';
import { toolformerCacheDir } from '../cli/start-cache.mjs';

/**
 * SHA-256 over the files a model is loaded from with `dtype` — config.json, generation_config.json, tokenizer.json,
 * tokenizer_config.json and the dtype's ONNX file with its external data — by relative name and content (other
 * dtypes' files, READMEs and training records do not move a verdict).
 */
export function modelFilesDigest(dir: string, dtype: Dtype): string {
  const onnx = onnxFileOf(dtype);
  const data = readdirSync(join(dir, dirname(onnx))).filter((f) => f.startsWith(`${basename(onnx)}_data`)).sort();
  const files = ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', onnx, ...data.map((f) => join(dirname(onnx), f))];
  const hash = createHash('sha256');
  const piece = Buffer.alloc(HASH_PIECE);
  for (const rel of files) {
    if (!existsSync(join(dir, rel))) continue;
    hash.update(`${rel}\0`);
    hashFile(hash, join(dir, rel), piece);
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Which versions can move a sampled token: the runtime and this package (its tokenizer and sampler). */
export function samplingVersions(): Record<string, string> {
  const all = packageVersions();
  return { 'toolformer-ts': all['toolformer-ts'], 'onnxruntime-node': all['onnxruntime-node'] };
}

export interface ProbeCacheOptions {
  /** `--lm-context` as given (undefined: auto). */
  lmContextFlag: RunFlags['lmContext'];
  /** The model's files as the verdicts depend on them (lm-backends ModelRef.probeDigest); undefined: not cached. */
  modelDigest: () => string | undefined;
  dtype: Dtype;
  /** false: `--no-probe-cache`, the probes run and nothing is read or written. */
  use: boolean;
  /** Information lines (the probes' notices): stdout. */
  notice: (line: string) => void;
  /** A problem with the cache, one line: stderr. */
  warn: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/**
 * The probes' verdicts, from the cache when it holds this key's, else run (run-probes.ts) and stored. `cache` is
 * config.json's `probeCache` (absent when no probe applies to this run: no LM proposals, or `--lm-context prompt`
 * with the sampling gate off). The notices are the same lines whichever way the verdicts came.
 */
export async function cachedProbes(parts: PipelineParts, config: AnnotateConfig, o: ProbeCacheOptions): Promise<{ verdicts: ProbeOutcome; cache?: ProbeCacheNote }> {
  const probes = config.lmProposals && (o.lmContextFlag !== 'prompt' || config.samplingGate !== null);
  if (!probes) {
    const verdicts = await computeProbes(parts, config, o.lmContextFlag);
    return { verdicts };
  }
  const digest = o.modelDigest();
  if (digest === undefined) {
    if (o.use) o.notice("probes: verdicts not cached for this model (a served model's weights cannot be hashed here); the probes run");
    const verdicts = await computeProbes(parts, config, o.lmContextFlag);
    for (const line of probeLines(verdicts, config)) o.notice(line);
    return { verdicts };
  }
  const model = { digest, dtype: o.dtype, versions: samplingVersions() };
  const inputs = probeKeyInputs(config, (tool) => parts.registry.get(tool), o.lmContextFlag ?? 'auto', model);
  const key = createHash('sha256').update(JSON.stringify(inputs)).digest('hex');
  // --no-probe-cache: nothing read or kept (the note still names the key).
  const cache = o.use ? fileCache(toolformerCacheDir(o.env)) : NO_CACHE;
  const { value: verdicts, cached } = await cachedOrBuilt(cache, {
    namespace: 'probe-verdicts',
    key,
    maxBytes: MAX_PROBE_CACHE_BYTES,
    parse: (text) => readProbeCacheRecord(text, key, config.tools),
    build: () => computeProbes(parts, config, o.lmContextFlag),
    serialize: (v) => probeCacheRecord(key, v),
    ignored: (entry, why, readFailed) => o.warn(`toolformer: probe cache ignored: ${readFailed ? why : `${entry} is damaged (${why})`}; the probes run again`),
    notStored: (why) => o.warn(`toolformer: probe verdicts not cached: ${why}`),
  });
  if (cached) o.notice(`probes: verdicts from the cache (${cache.where('probe-verdicts', key)}; --no-probe-cache to run them again)`);
  for (const line of probeLines(verdicts, config)) o.notice(line);
  return { verdicts, cache: { key, cached } };
}

