/**
 * A temporary folder for CLI tests that compare runs: `read(out, file)` reads a run's file, `expectSameAs(out)` checks
 * that run `out` wrote the same bytes as the reference run (`one` unless named) in every file a run writes. The
 * folder is removed after the test file's tests.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';

/** The files every run writes in --out. */
export const RUN_FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json'] as const;

export function runDirs(prefix: string): { tmp: string; read(out: string, file: string): string; expectSameAs(out: string, reference?: string): void } {
  const tmp = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const read = (out: string, file: string) => readFileSync(join(tmp, out, file), 'utf8');
  return {
    tmp,
    read,
    expectSameAs(out, reference = 'one') {
      for (const f of RUN_FILES) expect(read(out, f), `${out}/${f}`).toBe(read(reference, f));
    },
  };
}
