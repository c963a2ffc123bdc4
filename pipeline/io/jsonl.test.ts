import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type BadLine, readJsonl } from './jsonl.ts';

const dir = mkdtempSync(join(tmpdir(), 'jsonl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readJsonl', () => {
  const file = join(dir, 'a.jsonl');
  writeFileSync(file, '{"id":1}\n\n  \n{"id":2}\n{"id": 3,\n[4]\n');
  it('reads every record in order, skipping blank lines', () => {
    const ok = join(dir, 'ok.jsonl');
    writeFileSync(ok, '{"id":1}\n\n{"id":2}\n');
    expect(readJsonl(ok)).toEqual([{ id: 1 }, { id: 2 }]);
  });
  it('a line that is not JSON is an error naming file and line', () => {
    expect(() => readJsonl(file)).toThrow(new RegExp(`^${file.replace(/[.]/g, '\\.')}:5: not JSON \\(`));
  });
  it('with onBadLine, the bad line is reported and the rest is read', () => {
    const bad: BadLine[] = [];
    expect(readJsonl(file, (b) => bad.push(b))).toEqual([{ id: 1 }, { id: 2 }, [4]]);
    expect(bad).toEqual([{ file, line: 5, reason: expect.stringMatching(/^not JSON \(/) }]);
  });
});
