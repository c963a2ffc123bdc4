import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchBytes } from './model-source.ts';

/** 200 kB that compress well, served whole (/raw), brotli with the decoded length (/br), and brotli without it (/br-bare). */
const RAW = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i % 251) & 0x7f));
const PACKED = brotliCompressSync(RAW);
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/raw') {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': RAW.length });
      return res.end(RAW);
    }
    res.writeHead(200, {
      'Content-Type': 'application/octet-stream', 'Content-Encoding': 'br', 'Content-Length': PACKED.length,
      ...(req.url === '/br' ? { 'X-Decoded-Length': RAW.length } : {}),
    });
    res.end(PACKED);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The bytes and every (done, total) progress report of one download. */
async function download(path: string) {
  const reports: [number, number][] = [];
  const bytes = await fetchBytes(`${base}${path}`, (done, total) => reports.push([done, total]));
  return { bytes, reports };
}

describe('fetchBytes: download progress in decoded bytes', () => {
  it('counts against Content-Length for a response sent whole', async () => {
    const { bytes, reports } = await download('/raw');
    expect(Buffer.from(bytes).equals(RAW)).toBe(true);
    expect(reports.at(-1)).toEqual([RAW.length, RAW.length]);
  });

  it('counts against X-Decoded-Length for a compressed one (Content-Length is the compressed size), never past it', async () => {
    expect(PACKED.length).toBeLessThan(RAW.length / 10);
    const { bytes, reports } = await download('/br');
    expect(Buffer.from(bytes).equals(RAW)).toBe(true);
    expect(reports.every(([done, total]) => total === RAW.length && done <= total)).toBe(true);
  });

  it('without it, a compressed download reports the bytes so far as its total, not the compressed size', async () => {
    const { reports } = await download('/br-bare');
    expect(reports.every(([done, total]) => done === total)).toBe(true);
  });
});
