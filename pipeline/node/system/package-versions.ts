/**
 * The versions a run records in config.json (and a queue worker compares with the run's): toolformer-ts itself and
 * the packages whose behaviour can change a run's output. Read from package.json files; "missing" when absent.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export function packageVersions(): Record<string, string> {
  const root = resolve(import.meta.dirname, '../../..');
  const own = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  const out: Record<string, string> = { 'toolformer-ts': own.version };
  for (const name of ['@huggingface/transformers', 'onnxruntime-node', 'mathjs', 'p-queue', 'eld', 'minisearch']) {
    try {
      out[name] = JSON.parse(readFileSync(resolve(root, 'node_modules', name, 'package.json'), 'utf8')).version;
    } catch {
      out[name] = 'missing';
    }
  }
  return out;
}
