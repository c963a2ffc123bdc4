/**
 * The dense retriever's index cached across processes (core/retrieval/index-record.ts says what the key holds), so
 * a run's --workers children, shards and queue workers, and each `toolformer retrieve`, read the index the first
 * process built instead of training the projection again (13–16 CPU s for the mathjs catalog on models/default).
 * One JSON file per key beside the probe verdicts:
 *
 *   $TOOLFORMER_CACHE (default $XDG_CACHE_HOME/toolformer, XDG_CACHE_HOME default ~/.cache)
 *     retrieval-index/<key>.json     {version, key, names, centre, projection, tools, losses}
 *
 * A file that is damaged, too big or written for something else is reported in one line and ignored (the index is
 * built again and replaces it); a directory that cannot be written is reported and the run goes on.
 */
import { createHash } from 'node:crypto';
import { buildDenseIndex, type DenseIndex, type TextEncoder } from '../../core/retrieval/dense.ts';
import { denseIndexKeyInputs, denseIndexRecord, MAX_DENSE_INDEX_BYTES, readDenseIndexRecord } from '../../core/retrieval/index-record.ts';
import type { ProjectionOptions } from '../../core/retrieval/projection.ts';
import type { RetrievableTool } from '../../core/retrieval/tool-text.ts';
import type { Device } from '../../core/lm/devices.ts';
import { mulberry32 } from '../../random/mulberry32.ts';
import { resolveModel } from '../model/hf-cache.ts';
import { modelFilesDigest, samplingVersions } from '../run/probe-cache.ts';
import { fileCache } from '../system/file-cache.ts';
import { cachedOrBuilt } from '../../core/cache.ts';

export interface IndexCache {
  /** The cache root ($TOOLFORMER_CACHE or its default: start-cache.mjs toolformerCacheDir). */
  dir: string;
  /** A problem with the cache, one line (stderr). */
  warn: (line: string) => void;
}

export interface DenseIndexSource {
  tools: readonly RetrievableTool[];
  encoder: TextEncoder;
  /** The model the encoder reads (a folder or a cached hub id), loaded as fp32 on `device`. */
  model: string;
  device?: Device;
  seed: number;
  training: ProjectionOptions;
}

/** The index for `source`: read from `cache` when it holds this key's, else built (and stored there). */
export async function cachedDenseIndex(source: DenseIndexSource, cache?: IndexCache): Promise<{ index: DenseIndex; cached: boolean }> {
  const build = () => buildDenseIndex(source.tools, source.encoder, mulberry32(source.seed), source.training);
  if (!cache) return { index: await build(), cached: false };
  const { dir } = await resolveModel(source.model);
  const model = { digest: modelFilesDigest(dir, 'fp32'), dtype: 'fp32', device: source.device ?? 'cpu', versions: samplingVersions() };
  const key = createHash('sha256').update(JSON.stringify(denseIndexKeyInputs(source.tools, model, source.seed, source.training))).digest('hex');
  const names = source.tools.map((t) => t.name);
  const { value: index, cached } = await cachedOrBuilt(fileCache(cache.dir), {
    namespace: 'retrieval-index',
    key,
    maxBytes: MAX_DENSE_INDEX_BYTES,
    parse: (text) => {
      try {
        return readDenseIndexRecord(text, key, names);
      } catch (error) {
        return (error as Error).message;
      }
    },
    build,
    serialize: (built) => denseIndexRecord(key, built),
    ignored: (entry, why) => cache.warn(`toolformer: retrieval index cache ignored: ${entry}: ${why}; the index is built again`),
    notStored: (why) => cache.warn(`toolformer: retrieval index not cached: ${why}`),
  });
  return { index, cached };
}
