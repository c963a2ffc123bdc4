import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listed, skipLine, summarizeSkips } from './corpus-files.ts';
import { digestInputs } from './input-digest.ts';
import { type CorpusItem, listInputs, readCorpus } from './read-corpus.ts';

/**
 * Hostile layouts (issue 23): symlink loops, links to /dev/zero, FIFOs named *.jsonl, symlinked sub-directories,
 * same-named shards in two folders. The reader and the fingerprint walk one list (corpus-files.ts); every run here
 * must end, read every corpus file once, and name every path it skips.
 */
const tmp = mkdtempSync(join(tmpdir(), 'corpus-files-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const at = (...p: string[]) => join(tmp, ...p);

async function read(paths: string[]): Promise<CorpusItem[]> {
  const out: CorpusItem[] = [];
  for await (const item of readCorpus(paths)) out.push(item);
  return out;
}
const ids = (items: CorpusItem[]) => items.flatMap((i) => (i.kind === 'doc' ? [i.doc.id] : []));
const errors = (items: CorpusItem[]) => items.flatMap((i) => (i.kind === 'error' ? [`${i.code} ${i.file.slice(tmp.length + 1)}${i.line ? `:${i.line}` : ''}`] : []));
const skips = (paths: string[]) =>
  [...listInputs(paths)].flatMap((l: Listed) => (l.kind === 'skipped' ? [`${l.reason} ${l.path.slice(tmp.length + 1)}`] : []));
const record = (text: string, id?: string) => `${JSON.stringify(id ? { id, text } : { text })}\n`;

beforeAll(() => {
  // A folder with two self-links and a link to its parent: loops every naive walker follows forever.
  mkdirSync(at('loops/docs'), { recursive: true });
  writeFileSync(at('loops/docs/a.jsonl'), record('In the loop folder.', 'loop-a'));
  symlinkSync('.', at('loops/docs/self1'));
  symlinkSync('.', at('loops/docs/self2'));
  symlinkSync('..', at('loops/docs/up'));
  // Devices and FIFOs with corpus names: reading them blocks or never ends.
  mkdirSync(at('special'));
  writeFileSync(at('special/good.jsonl'), record('Good one.', 'good'));
  symlinkSync('/dev/zero', at('special/zero.jsonl'));
  execFileSync('mkfifo', [at('special/pipe.jsonl')]);
  // Hidden and other-kind files, a symlinked sub-directory, a second link to a file already read.
  mkdirSync(at('elsewhere'));
  writeFileSync(at('elsewhere/linked.jsonl'), record('Through a linked folder.', 'linked'));
  mkdirSync(at('mixed'));
  writeFileSync(at('mixed/.hidden.jsonl'), record('Hidden.', 'hidden'));
  writeFileSync(at('mixed/notes.md'), '# not a corpus file');
  writeFileSync(at('mixed/doc.txt'), 'A text document.');
  symlinkSync('../elsewhere', at('mixed/sub'));
  symlinkSync('doc.txt', at('mixed/doc-again.txt'));
  // Two shards with the same name in two folders, records without ids.
  for (const shard of ['a', 'b']) {
    mkdirSync(at('shards', shard), { recursive: true });
    writeFileSync(at('shards', shard, 'part.jsonl'), record(`Shard ${shard}, one.`) + record(`Shard ${shard}, two.`));
  }
  // An empty .jsonl, and one whose second record holds a NUL byte.
  mkdirSync(at('edge'));
  writeFileSync(at('edge/empty.jsonl'), '');
  writeFileSync(at('edge/blank.jsonl'), '\n  \n');
  writeFileSync(at('edge/nul.jsonl'), Buffer.concat([Buffer.from(record('First.', 'n1')), Buffer.from('{"id":"n2","text":"a\u0000b"}\n'.replace('\\u0000', '\u0000')), Buffer.from(record('Third.', 'n3'))]));
});

describe('symlink loops and special files', () => {
  it('a folder of self-links is read once and ends: each loop named', async () => {
    expect(ids(await read([at('loops')]))).toEqual(['loop-a']);
    expect(skips([at('loops')])).toEqual(['symlink-loop loops/docs/self1', 'symlink-loop loops/docs/self2', 'symlink-loop loops/docs/up']);
  });

  it('a link to /dev/zero and a FIFO named *.jsonl are skipped, named and counted, inside a folder or named', async () => {
    expect(ids(await read([at('special')]))).toEqual(['good']);
    expect(skips([at('special')])).toEqual(['not-a-regular-file special/pipe.jsonl', 'not-a-regular-file special/zero.jsonl']);
    // Named on the command line, whatever the name: /dev/zero itself too. The named good file is still read.
    const named = [at('special/zero.jsonl'), at('special/pipe.jsonl'), '/dev/zero', at('special/good.jsonl')];
    expect(errors(await read(named))).toEqual([]);
    expect(ids(await read(named))).toEqual(['good']);
    const skipped = [...listInputs(named)].flatMap((l) => (l.kind === 'skipped' ? [`${l.reason} ${l.path}`] : []));
    expect(skipped).toEqual(named.slice(0, 3).map((p) => `not-a-regular-file ${p}`));
  });

  it('the fingerprint of those folders ends too, and hashes only what the reader reads', () => {
    const before = digestInputs([at('loops'), at('special'), at('mixed')]);
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(at('mixed/notes.md'), '# changed: not read, not hashed');
    expect(digestInputs([at('loops'), at('special'), at('mixed')])).toBe(before);
    writeFileSync(at('mixed/doc.txt'), 'A text document, changed.');
    expect(digestInputs([at('loops'), at('special'), at('mixed')])).not.toBe(before);
  });
});

describe('every input path read or named', () => {
  it('a symlinked sub-directory is followed; hidden, other-kind and twice-reached files are skipped by name', async () => {
    const items = await read([at('mixed')]);
    // "doc-again.txt" (the link) sorts before "doc.txt": the first path to a file reads it.
    expect(ids(items)).toEqual([at('mixed/doc-again.txt'), 'linked']);
    expect(skips([at('mixed')])).toEqual(['hidden mixed/.hidden.jsonl', 'already-listed mixed/doc.txt', 'other-kind mixed/notes.md']);
    const summary = summarizeSkips(listInputs([at('mixed')]));
    expect(summary).toEqual({
      hidden: { count: 1, first: [at('mixed/.hidden.jsonl')] },
      'already-listed': { count: 1, first: [at('mixed/doc.txt')] },
      'other-kind': { count: 1, first: [at('mixed/notes.md')] },
    });
    expect(skipLine(summary)).toBe(`toolformer: skipped 3 input paths: 1 hidden (${at('mixed/.hidden.jsonl')}); 1 already-listed (${at('mixed/doc.txt')}); 1 other-kind (${at('mixed/notes.md')})`);
  });

  it('an empty .jsonl (or one of blank lines) is an error record, as an empty .txt is', async () => {
    expect(errors(await read([at('edge/empty.jsonl'), at('edge/blank.jsonl')]))).toEqual(['empty-text edge/empty.jsonl', 'empty-text edge/blank.jsonl']);
  });

  it('a NUL byte in one record of a .jsonl costs that record only', async () => {
    const items = await read([at('edge/nul.jsonl')]);
    expect(ids(items)).toEqual(['n1', 'n3']);
    expect(errors(items)).toEqual(['binary edge/nul.jsonl:2']);
  });
});

describe('same-named shards in two folders', () => {
  it('every record is read, with ids from the path under the inputs\' root: distinct, and the same for a folder or a glob', async () => {
    const byFolder = await read([at('shards')]);
    expect(ids(byFolder)).toEqual(['a/part.jsonl:1', 'a/part.jsonl:2', 'b/part.jsonl:1', 'b/part.jsonl:2']);
    expect(errors(byFolder)).toEqual([]);
    // The shell's `shards/*/part.jsonl`: the same ids.
    expect(ids(await read([at('shards/a/part.jsonl'), at('shards/b/part.jsonl')]))).toEqual(ids(byFolder));
    // Stable across runs.
    expect(ids(await read([at('shards')]))).toEqual(ids(byFolder));
  });

  it('one file named alone keeps its name as the id base', async () => {
    expect(ids(await read([at('shards/b/part.jsonl')]))).toEqual(['part.jsonl:1', 'part.jsonl:2']);
  });
});
