/**
 * The key-value cache port (core/cache.ts) on Node: one file per entry under the user's cache folder,
 *
 *   $TOOLFORMER_CACHE (default $XDG_CACHE_HOME/toolformer, XDG_CACHE_HOME default ~/.cache)
 *     <namespace>/<key>.json
 *
 * read through the bounded reader (a file too big, not regular or unreadable is a thrown line) and written
 * write-then-rename, so a reader never sees half a file (two processes storing the same key at once each rename a
 * whole file).
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KeyValueCache } from '../../core/cache.ts';
import { readBoundedFile } from './safe-paths.ts';
import { toolformerCacheDir } from '../cli/start-cache.mjs';

export function fileCache(root: string = toolformerCacheDir()): KeyValueCache {
  const where = (namespace: string, key: string) => join(root, namespace, `${key}.json`);
  return {
    where,
    async get(namespace, key, maxBytes) {
      const file = where(namespace, key);
      if (!existsSync(file)) return undefined;
      return readBoundedFile(file, file, maxBytes).toString('utf8');
    },
    async set(namespace, key, value) {
      const file = where(namespace, key);
      mkdirSync(dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}.tmp`;
      writeFileSync(tmp, value);
      renameSync(tmp, file);
    },
  };
}
