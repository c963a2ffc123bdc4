import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINT_FILE, decodeCheckpoint, encodeCheckpoint, readCheckpoint, writeCheckpoint, type Checkpoint } from './checkpoint.ts';

const sample = (): Checkpoint => ({
  header: { step: 7, tokensSeen: 896, trainSeconds: 1.5, config: { nEmbd: 8 }, data: { rng: 123456789 }, note: 'é ü' },
  tensors: { params: Float32Array.from([1, -2.5, 3e-8, Math.PI]), 'adam.m': Float32Array.from([0.25]), 'adam.v': new Float32Array(0) },
});

function inTmp(run: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
  try {
    run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('checkpoint file', () => {
  it('reads back exactly what was written: header and every float', () => {
    inTmp((dir) => {
      const path = join(dir, CHECKPOINT_FILE);
      writeCheckpoint(path, sample());
      const back = readCheckpoint(path)!;
      expect(back.header).toEqual(sample().header);
      expect(Object.keys(back.tensors)).toEqual(['params', 'adam.m', 'adam.v']);
      for (const [k, t] of Object.entries(sample().tensors)) expect([...back.tensors[k]]).toEqual([...t]);
      expect(readFileSync(path)).toEqual(Buffer.from(encodeCheckpoint(sample())));
    });
  });

  it('is absent, not an error, when there is none; a stale .tmp from a killed write is ignored', () => {
    inTmp((dir) => {
      const path = join(dir, CHECKPOINT_FILE);
      expect(readCheckpoint(path)).toBeUndefined();
      writeCheckpoint(path, sample());
      writeFileSync(`${path}.tmp`, encodeCheckpoint(sample()).subarray(0, 30)); // a write killed half-way
      expect(readCheckpoint(path)!.header.step).toBe(7);
      writeCheckpoint(path, { ...sample(), header: { ...sample().header, step: 8 } }); // overwrites the stale .tmp
      expect(readCheckpoint(path)!.header.step).toBe(8);
    });
  });

  it('refuses a truncated, damaged or foreign file by name, and the earlier two-file format', () => {
    const bytes = encodeCheckpoint(sample());
    expect(() => decodeCheckpoint(bytes.subarray(0, bytes.length - 1), 'x.bin')).toThrow(/checkpoint x\.bin: truncated/);
    expect(() => decodeCheckpoint(bytes.subarray(0, 20), 'x.bin')).toThrow(/truncated/);
    const flipped = Uint8Array.from(bytes);
    flipped[bytes.length - 40] ^= 1; // a bit of a float
    expect(() => decodeCheckpoint(flipped, 'x.bin')).toThrow(/damaged \(SHA-256 mismatch\)/);
    expect(() => decodeCheckpoint(Buffer.from('{"step": 3}'), 'ckpt.json')).toThrow(/not a toolformer-ts training checkpoint/);
    const future = Uint8Array.from(bytes);
    future[6] = 2;
    expect(() => decodeCheckpoint(future, 'x.bin')).toThrow(/format version 2/);
    inTmp((dir) => {
      writeFileSync(join(dir, 'ckpt.json'), '{"step": 25}');
      expect(() => readCheckpoint(join(dir, CHECKPOINT_FILE))).toThrow(/earlier two-file format/);
    });
  });
});
