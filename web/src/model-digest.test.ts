// The page's model digest is the CLI's (pipeline/node/run/run-digest.ts modelDigest, which every toolkens file
// records): same files, same order, same bytes — on the bundled model and on a folder whose names sort differently
// part by part than as whole strings.
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelDigest } from '../../pipeline/node/run/run-digest.ts';
import { fileList } from '../repo-files-plugin.ts';
import { digestOrder, folderDigest, type DigestFile } from './model-digest.ts';

const DEFAULT = join(import.meta.dirname, '../../models/default');

/** The folder as the page sees a bundled one: its FILE_LIST, each file streamed. */
function listed(dir: string): DigestFile[] {
  const { files } = JSON.parse(fileList(dir)) as { files: { path: string; size: number }[] };
  return files.map(({ path, size }) => ({
    path,
    size,
    chunks: () => createReadStream(join(dir, path), { highWaterMark: 1 << 16 }) as AsyncIterable<Uint8Array>,
  }));
}

const temp: string[] = [];
afterAll(() => Promise.all(temp.map((d) => rm(d, { recursive: true, force: true }))));

describe('folderDigest', () => {
  it("equals the CLI's modelDigest on models/default, and reports every byte", async () => {
    const seen: number[] = [];
    const digest = await folderDigest(listed(DEFAULT), (done, total) => seen.push(done / total));
    expect(digest).toBe(modelDigest(DEFAULT));
    expect(seen.at(-1)).toBe(1);
  });

  it('orders by path parts ("onnx/…" before "onnx.txt"), skips dotfiles, and tells one byte apart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'digest-'));
    temp.push(dir);
    await mkdir(join(dir, 'onnx'));
    await mkdir(join(dir, '.cache'));
    await writeFile(join(dir, 'onnx/model.onnx'), 'weights');
    await writeFile(join(dir, 'onnx.txt'), 'note');
    await writeFile(join(dir, 'B.json'), '{}');
    await writeFile(join(dir, '.hidden'), 'not hashed');
    await writeFile(join(dir, '.cache/x'), 'not hashed');
    expect(['onnx.txt', 'onnx/model.onnx', 'B.json'].sort(digestOrder)).toEqual(['B.json', 'onnx/model.onnx', 'onnx.txt']);
    const before = await folderDigest(listed(dir));
    expect(before).toBe(modelDigest(dir));
    await writeFile(join(dir, 'onnx.txt'), 'notf');
    expect(await folderDigest(listed(dir))).not.toBe(before);
  });
});
