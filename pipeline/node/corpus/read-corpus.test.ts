import { createWriteStream, mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CorpusItem, readCorpus } from './read-corpus.ts';

async function collect(paths: string[], opts = {}): Promise<CorpusItem[]> {
  const out: CorpusItem[] = [];
  for await (const item of readCorpus(paths, opts)) out.push(item);
  return out;
}

/** "code@file-basename:line" for errors, "id@line" for docs: compact and order-preserving. */
function summary(items: CorpusItem[]): string[] {
  return items.map((i) =>
    i.kind === 'doc' ? `doc ${i.doc.id}@${i.line}` : `${i.code}@${i.file.split('/').pop()}${i.line ? `:${i.line}` : ''}`,
  );
}

describe('readCorpus on the bundled sample', () => {
  it('reads corpus/sample.jsonl: 30 docs with ids, sources and dates, no errors', async () => {
    const items = await collect(['corpus/sample.jsonl']);
    expect(items.filter((i) => i.kind === 'error')).toEqual([]);
    expect(items).toHaveLength(30);
    const first = items[0];
    expect(first.kind === 'doc' && first.doc.id).toBe('sotu/1790-george-washington-n/000');
    expect(first.kind === 'doc' && first.doc.date).toBe('1790');
    expect(first.kind === 'doc' && first.doc.text.startsWith('Fellow-Citizens of the Senate')).toBe(true);
  });
});

describe('readCorpus on bad input', () => {
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'read-corpus-'));
    const lines = [
      '{"id":"a","text":"Hello world.","date":"2023-01-30"}', // 1 ok
      '{"id":"b","text":', // 2 malformed
      '[1,2]', // 3 not an object
      '{"id":"c"}', // 4 missing text
      '{"id":5,"text":"x"}', // 5 id wrong type
      '{"id":"d","text":"   \\n "}', // 6 empty
      '{"id":"a","text":"again"}', // 7 duplicate id
      '{"id":"e","text":"ok","date":"2023-02-30"}', // 8 impossible date
      '', // 9 blank: skipped, not an error
      '{"text":"no id here"}', // 10 ok, id from file:line
      '{"id":"g","text":"crlf line"}\r', // 11 ok despite CRLF
    ];
    const bad = Buffer.concat([
      Buffer.from(lines.slice(0, 8).join('\n') + '\n'),
      Buffer.from('{"id":"f","text":"caf'), // invalid UTF-8 on line 9
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}\n'),
      Buffer.from(lines.slice(8).join('\n') + '\n'),
    ]);
    mkdirSync(join(dir, 'in'));
    writeFileSync(join(dir, 'in', 'b-bad.jsonl'), bad);
    writeFileSync(join(dir, 'in', 'a-good.txt'), 'Plain text document about Harrisburg.\n');
    writeFileSync(join(dir, 'in', 'c-empty.txt'), '\n\n  \n');
    writeFileSync(join(dir, 'in', 'd-latin1.txt'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in Latin-1
    writeFileSync(join(dir, 'in', 'e-binary.jsonl'), Buffer.from([0x7b, 0x00, 0x01, 0x02, 0x0a, 0xff]));
    writeFileSync(join(dir, 'in', 'f-binary.txt'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00]));
    writeFileSync(join(dir, 'in', 'g-notes.md'), '# ignored in a directory');
    writeFileSync(join(dir, 'in', '.hidden.jsonl'), '{"id":"h","text":"hidden"}\n');
    symlinkSync(join(dir, 'nowhere.jsonl'), join(dir, 'in', 'h-dangling.jsonl'));
    mkdirSync(join(dir, 'in', 'sub'));
    writeFileSync(join(dir, 'in', 'sub', 'z.jsonl'), '{"id":"sub-1","text":"Nested file."}\n');
    // A 10 MB single-line record followed by a good one, written in 64 KiB pieces (never 10 MB in memory here).
    await new Promise<void>((resolve, reject) => {
      const ws = createWriteStream(join(dir, 'big.jsonl'));
      ws.on('error', reject);
      ws.write('{"id":"big","text":"');
      const piece = 'x'.repeat(65536);
      for (let i = 0; i < 160; i++) ws.write(piece);
      ws.write('"}\n{"id":"after-big","text":"Still read."}\n');
      ws.end(resolve);
    });
    writeFileSync(join(dir, 'big.txt'), 'y'.repeat(2000));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reports each bad record with file, line and reason, and goes on', async () => {
    const items = await collect([join(dir, 'in', 'b-bad.jsonl')]);
    expect(summary(items)).toEqual([
      'doc a@1',
      'malformed-json@b-bad.jsonl:2',
      'not-an-object@b-bad.jsonl:3',
      'missing-field@b-bad.jsonl:4',
      'wrong-type@b-bad.jsonl:5',
      'empty-text@b-bad.jsonl:6',
      'duplicate-id@b-bad.jsonl:7',
      'wrong-type@b-bad.jsonl:8',
      'invalid-utf8@b-bad.jsonl:9',
      'doc b-bad.jsonl:11@11',
      'doc g@12',
    ]);
    const reasons = items.flatMap((i) => (i.kind === 'error' ? [i.reason] : []));
    expect(reasons[2]).toBe('no "text" field');
    expect(reasons[3]).toBe('"id" is number, expected a string');
    expect(reasons[5]).toContain('"a" already seen');
    expect(reasons[6]).toContain('expected YYYY-MM-DD');
    const g = items[items.length - 1];
    expect(g.kind === 'doc' && g.doc.text).toBe('crlf line');
  });

  it('walks a directory in sorted order, skipping hidden and non-corpus files, reporting bad files', async () => {
    const items = await collect([join(dir, 'in')]);
    expect(summary(items).filter((s) => !s.includes('b-bad'))).toEqual([
      'doc ' + join(dir, 'in', 'a-good.txt') + '@1',
      'doc a@1',
      'doc g@12',
      'empty-text@c-empty.txt:1',
      'invalid-utf8@d-latin1.txt',
      // Starts like JSONL ("{"): judged per record, the NUL record and the bad UTF-8 one each reported.
      'binary@e-binary.jsonl:1',
      'invalid-utf8@e-binary.jsonl:2',
      'binary@f-binary.txt',
      'unreadable@h-dangling.jsonl',
      'doc sub-1@1',
    ]);
  });

  it('reports a missing path and an explicitly named file of another kind', async () => {
    const items = await collect([join(dir, 'does-not-exist.jsonl'), join(dir, 'in', 'g-notes.md')]);
    expect(summary(items)).toEqual(['missing-path@does-not-exist.jsonl', 'unsupported-extension@g-notes.md']);
  });

  it('reports a 10 MB single-line record as too-long, with its size, and reads the next line', async () => {
    const items = await collect([join(dir, 'big.jsonl')]);
    expect(summary(items)).toEqual(['too-long@big.jsonl:1', 'doc after-big@2']);
    const e = items[0];
    expect(e.kind === 'error' && e.reason).toBe(`record is ${20 + 160 * 65536 + 2} bytes, over the 4194304-byte cap`); // the default cap, 4 MiB
  });

  it('applies the cap to .txt files by size, before reading them', async () => {
    const items = await collect([join(dir, 'big.txt')], { limits: { maxRecordBytes: 1000 } });
    expect(summary(items)).toEqual(['too-long@big.txt']);
  });
});
