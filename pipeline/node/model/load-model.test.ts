import { describe, expect, it } from 'vitest';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TINY_RANDOM_DIR } from '../../onnx-export/tiny-random.ts';
import { loadModel } from './load-model.ts';

async function withCopy(edit: (dir: string) => Promise<void>, check: (dir: string) => Promise<void>) {
  const dir = await mkdtemp(join(tmpdir(), 'load-model-'));
  try {
    await cp(TINY_RANDOM_DIR, dir, { recursive: true });
    await edit(dir);
    await check(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('loadModel', () => {
  it('loads models/tiny-random', async () => {
    const lm = await loadModel(TINY_RANDOM_DIR);
    expect(lm.id).toBe(TINY_RANDOM_DIR);
    expect(lm.maxLength).toBe(256);
    expect(lm.encode(' [')).toEqual([256]);
    await lm.release();
  });

  it('names the path and the fix when the directory is missing', async () => {
    const error = await loadModel('models/no-such-model').catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain(`cannot load model from ${resolve('models/no-such-model')}: no such directory`);
    expect(message).toContain('config.json, tokenizer.json, onnx/model.onnx');
    expect(message).not.toContain('\n');
  });

  it('lists missing files', () =>
    withCopy(
      (dir) => rm(join(dir, 'onnx'), { recursive: true }),
      async (dir) => {
        await expect(loadModel(dir)).rejects.toThrow(`cannot load model from ${dir}: missing onnx/model.onnx.`);
      },
    ));

  it('reports corrupt JSON by file', () =>
    withCopy(
      (dir) => writeFile(join(dir, 'config.json'), '{"model_type": "gpt2",'),
      async (dir) => {
        await expect(loadModel(dir)).rejects.toThrow(`cannot load model from ${dir}: config.json is not valid JSON`);
      },
    ));

  it('reports a corrupt ONNX file on one line', () =>
    withCopy(
      (dir) => writeFile(join(dir, 'onnx/model.onnx'), 'not a protobuf'),
      async (dir) => {
        const error = (await loadModel(dir).catch((e: Error) => e)) as Error;
        expect(error.message).toContain(`cannot load model from ${dir}: onnx/model.onnx: `);
        expect(error.message).not.toContain('\n');
      },
    ));
});
