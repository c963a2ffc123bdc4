/**
 * A model folder's digest in the browser, the same SHA-256 as the CLI's `modelDigest` (pipeline/node/run/run-digest.ts,
 * written into every toolkens file): over the folder's files in sorted order — names sorted within each directory,
 * dotfiles skipped — each as its relative path, a NUL byte, then its bytes. The bytes are streamed into one
 * incremental hash (@noble/hashes: WebCrypto has no incremental digest, and a folder of several dtypes can be
 * gigabytes), so memory stays at one chunk. Isomorphic (the page's worker; the unit test runs it in Node).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/** One file of the folder: its path inside it ("onnx/model.onnx") and its bytes, chunk by chunk. */
export interface DigestFile {
  path: string;
  /** Bytes in all (for progress). */
  size: number;
  chunks(): AsyncIterable<Uint8Array>;
}

/** The listing a bundled model folder serves beside its files (repo-files-plugin.ts): its files' relative paths. */
export const FILE_LIST = '.files.json';

/** Whether a path is one the digest reads: no part of it starts with "." (the CLI's walk skips dotfiles and dot-folders). */
export const digested = (path: string): boolean => path.split('/').every((part) => part !== '' && !part.startsWith('.'));

/**
 * The CLI's order: a directory's names sorted (UTF-16 code units, as Array.prototype.sort), each directory's files
 * at its own name's place. That is the order of the paths' parts compared one by one — not of the whole strings
 * ("onnx.txt" sorts after the folder "onnx", though "." < "/").
 */
export function digestOrder(a: string, b: string): number {
  const [pa, pb] = [a.split('/'), b.split('/')];
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i] < pb[i] ? -1 : 1;
  return pa.length - pb.length;
}

/** Hex SHA-256 of the folder; `onProgress` gets bytes hashed of all. */
export async function folderDigest(files: readonly DigestFile[], onProgress?: (done: number, total: number) => void): Promise<string> {
  const chosen = files.filter((f) => digested(f.path)).sort((a, b) => digestOrder(a.path, b.path));
  const total = chosen.reduce((s, f) => s + f.size, 0);
  const hash = sha256.create();
  const utf8 = new TextEncoder();
  let done = 0;
  for (const f of chosen) {
    hash.update(utf8.encode(`${f.path}\0`));
    for await (const chunk of f.chunks()) {
      hash.update(chunk);
      done += chunk.length;
      onProgress?.(done, total);
    }
  }
  return bytesToHex(hash.digest());
}

/** A ReadableStream's chunks (a File's, or a fetch body's). */
export async function* streamChunks(stream: ReadableStream<Uint8Array>): AsyncIterable<Uint8Array> {
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}
