import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A SHA-256 over the inputs' contents (files, and directories walked in sorted order), so a --resume can tell
 * that the corpus it skips items of is the one the run started on. Content-based: the same files give the same
 * digest on any machine, so config.json stays identical across runs. Unreadable paths count by name only (the
 * reader reports them as error records).
 */
export function digestInputs(paths: readonly string[]): string {
  const hash = createHash('sha256');
  const add = (path: string): void => {
    hash.update(`${path}\0`);
    try {
      if (statSync(path).isDirectory()) {
        for (const name of readdirSync(path).sort()) add(join(path, name));
      } else {
        hash.update(readFileSync(path));
      }
    } catch {
      hash.update('unreadable\0');
    }
  };
  for (const path of paths) add(path);
  return hash.digest('hex');
}
