import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { AnnotateConfig } from '../../core/config.ts';
import { HASH_PIECE, hashFile } from '../system/file-hash.ts';

/**
 * What makes two processes produce the same bytes for a chunk: the model's files (by content, not path), the code
 * and library versions, the translation engine found on the machine, and the config (less batch size and tool
 * concurrency, which do not change the output), with --max-docs and the chunk size that fix the chunks.
 */
export interface RunIdentity {
  modelDigest: string;
  /** Which ONNX file of the model directory (--dtype). */
  dtype: string;
  modelMaxLength: number;
  translationEngine: string;
  versions: Record<string, string>;
  config: Omit<AnnotateConfig, 'batchSize' | 'toolConcurrency'>;
  maxDocs: number | null;
  chunkItems: number;
}

/** SHA-256 over a model directory's files: relative names and contents (streamed), in sorted order (the same on any machine). */
export function modelDigest(dir: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(HASH_PIECE);
  const add = (rel: string): void => {
    const path = join(dir, rel);
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) if (!name.startsWith('.')) add(rel ? `${rel}/${name}` : name);
    } else {
      hash.update(`${rel}\0`);
      hashFile(hash, path, buffer);
    }
  };
  add('');
  return hash.digest('hex');
}

export function runIdentity(args: {
  /** lm-backends ModelRef.digest(): the weights' files, or a served model's URL, name and tokenizer. */
  modelDigest: string;
  dtype: string;
  meta: { modelMaxLength: number; translationEngine: string; versions: Record<string, string> };
  config: AnnotateConfig;
  maxDocs?: number;
  chunkItems: number;
}): RunIdentity {
  const { batchSize: _b, toolConcurrency: _c, ...config } = args.config;
  return {
    modelDigest: args.modelDigest,
    dtype: args.dtype,
    modelMaxLength: args.meta.modelMaxLength,
    translationEngine: args.meta.translationEngine,
    versions: args.meta.versions,
    config,
    maxDocs: args.maxDocs ?? null,
    chunkItems: args.chunkItems,
  };
}

export const digestOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');
