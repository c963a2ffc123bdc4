import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` (path relative to it → bytes as latin1), to check that a refused command changed nothing. */
export function folderSnapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = join(sub, name);
      if (statSync(join(dir, rel)).isDirectory()) walk(rel);
      else files[rel] = readFileSync(join(dir, rel), 'latin1');
    }
  };
  walk('');
  return files;
}
