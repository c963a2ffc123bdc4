import { mkdtempSync, readFileSync, existsSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { writeBrotliSiblings } from './precompress-plugin.ts';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeBrotliSiblings (the production build\'s precompressed files)', () => {
  it('writes <file>.br for compressible files over 1 kB, in subfolders too, that decompress to the file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'precompress-'));
    mkdirSync(join(dir, 'models/m/onnx'), { recursive: true });
    const script = 'export const x = 1;\n'.repeat(200);
    writeFileSync(join(dir, 'app.js'), script);
    writeFileSync(join(dir, 'models/m/onnx/model.onnx'), Buffer.alloc(50_000, 7));
    writeFileSync(join(dir, 'tiny.json'), '{"a":1}');
    writeFileSync(join(dir, 'photo.png'), Buffer.alloc(5_000, 1));
    expect(await writeBrotliSiblings(dir)).toBe(2);
    expect(brotliDecompressSync(readFileSync(join(dir, 'app.js.br'))).toString()).toBe(script);
    expect(brotliDecompressSync(readFileSync(join(dir, 'models/m/onnx/model.onnx.br'))).equals(Buffer.alloc(50_000, 7))).toBe(true);
    expect(existsSync(join(dir, 'tiny.json.br'))).toBe(false); // under 1 kB
    expect(existsSync(join(dir, 'photo.png.br'))).toBe(false); // not a type the plugin compresses
  });

  it('skips a file compression does not shrink (random bytes)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'precompress-'));
    writeFileSync(join(dir, 'noise.wasm'), randomBytes(4096));
    expect(await writeBrotliSiblings(dir)).toBe(0);
    expect(existsSync(join(dir, 'noise.wasm.br'))).toBe(false);
  });
});
