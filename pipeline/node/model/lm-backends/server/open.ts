/**
 * Opens a served model for the registry: reads the model's own tokenizer and config from `--tokenizer` (a folder or
 * an org/name in the local Hugging Face cache), the API key from TOOLFORMER_API_KEY (or OPENAI_API_KEY) — never from a
 * flag, so it never lands in a run's config.json — and connects (ServerLM.open).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { resolveModel } from '../../hf-cache.ts';
import { MAX_STATE_BYTES, readBoundedFile } from '../../../system/safe-paths.ts';
import type { LMBackend, LoadedLM, ModelRef, OpenLMOptions } from '../types.ts';
import { ServerLM } from './server-lm.ts';

/** The environment variables the key is read from, in order. */
export const API_KEY_ENV = ['TOOLFORMER_API_KEY', 'OPENAI_API_KEY'] as const;

/** The folder --tokenizer names, or the one line saying it is needed. */
async function tokenizerDir(url: string, o: OpenLMOptions): Promise<string> {
  if (!o.tokenizer) {
    throw new Error(`--model ${url}: a served model needs --tokenizer <the model's folder or org/name> (its tokenizer.json and config.json are read here, so ids go to the server untouched)`);
  }
  return (await resolveModel(o.tokenizer)).dir;
}

/** The served model as a run records it: its URL and name; its identity also covers the tokenizer's files. */
export async function serverModelRef(backend: LMBackend, url: string, o: OpenLMOptions): Promise<ModelRef> {
  const dir = await tokenizerDir(url, o);
  const recorded = o.servedModel ? `${url}#${o.servedModel}` : url;
  return {
    backend,
    recorded,
    digest: () => {
      const hash = createHash('sha256').update(`${recorded}\0`);
      for (const name of ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'generation_config.json']) {
        if (existsSync(join(dir, name))) hash.update(`${name}\0`).update(readBoundedFile(join(dir, name), `--tokenizer ${join(dir, name)}`, MAX_STATE_BYTES));
      }
      return hash.digest('hex');
    },
    probeDigest: () => undefined,
  };
}

export async function openServerModel(url: string, o: OpenLMOptions): Promise<LoadedLM> {
  const dir = await tokenizerDir(url, o);
  const json = (name: string, optional = false): Record<string, unknown> | undefined => {
    let bytes: Buffer;
    try {
      bytes = readBoundedFile(join(dir, name), `--tokenizer ${join(dir, name)}`, MAX_STATE_BYTES);
    } catch (error) {
      if (optional && / is missing$/.test((error as Error).message)) return undefined;
      throw error;
    }
    try {
      return JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`--tokenizer ${join(dir, name)} is not valid JSON (${(error as Error).message})`);
    }
  };
  const apiKey = API_KEY_ENV.map((name) => process.env[name]).find((v) => v !== undefined && v !== '');
  return ServerLM.open({
    baseUrl: url,
    servedModel: o.servedModel,
    files: { tokenizer: json('tokenizer.json')!, tokenizerConfig: json('tokenizer_config.json', true), config: json('config.json')!, generationConfig: json('generation_config.json', true) },
    id: o.servedModel ? `${url}#${o.servedModel}` : url,
    http: { ...o.server, apiKey, onRetry: o.server?.onRetry ?? ((line) => (o.onWarning ?? console.error)(`retry: ${line}`)) },
    onWarning: o.onWarning,
  });
}
