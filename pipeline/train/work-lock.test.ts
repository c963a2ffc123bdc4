/**
 * One trainer per --work (io/dir-lock.ts): `train:model` and `toolformer finetune` given a folder another live
 * trainer holds are refused before they read or write anything in it.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lockDirectory } from '../io/dir-lock.ts';
import { finetune, type FinetuneOptions } from './finetune.ts';
import { trainModel, type TrainModelOptions } from './from-scratch.ts';

describe('a training run holds its --work folder', () => {
  it('a second trainer on a held folder is refused, naming the holder; the folder is left as it was', async () => {
    const work = mkdtempSync(join(tmpdir(), 'work-lock-'));
    const held = lockDirectory(work, 'training run', 'train.lock');
    try {
      // Options past --work are never read: the lock is taken first.
      await expect(trainModel({ work } as TrainModelOptions)).rejects.toThrow(`${work} is in use by another training run (pid ${process.pid} on `);
      await expect(finetune({ work } as FinetuneOptions)).rejects.toThrow(/is in use by another training run .*remove .*train\.lock$/);
      expect(readdirSync(work)).toEqual(['train.lock']);
    } finally {
      held.release();
    }
    expect(existsSync(join(work, 'train.lock'))).toBe(false);
  });
});
