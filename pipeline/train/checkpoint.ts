/**
 * The trainer's checkpoint: one file, written crash-safely, read by one reader that names what is wrong with a file
 * it cannot use.
 *
 * Layout of `<work>/checkpoint.bin` (all integers and floats little-endian):
 *   [0, 8)       magic "TFCKPT" + format version (uint16, currently 1)
 *   [8, 12)      header length H in bytes (uint32), a multiple of 4
 *   [12, 12+H)   header: UTF-8 JSON, padded with spaces ({@link CheckpointHeader}: the run's counters, config,
 *                options, data-source state, and the name and length of each float32 tensor that follows)
 *   then         the tensors' float32 values, in header order (the trainer's: params, adam.m, adam.v)
 *   last 32      SHA-256 of every byte before it: a torn or damaged file is refused, never half-loaded
 *
 * Writing goes to `<path>.tmp`, fsyncs it, renames it over `<path>` and fsyncs the directory, so a kill at any
 * moment leaves either the previous checkpoint or the new one (a stale `.tmp` is ignored and overwritten).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { READ_CAPS, readBoundedFile } from '../io/bounded-read.ts';
import { dirname } from 'node:path';

export const CHECKPOINT_FILE = 'checkpoint.bin';
const MAGIC = 'TFCKPT';
const VERSION = 1;
const PREFIX = 12; // magic (6) + version (2) + header length (4)
const DIGEST = 32;

export interface CheckpointHeader {
  /** Optimiser steps taken. */
  step: number;
  tokensSeen: number;
  /** Seconds spent in optimiser steps, over every process of the run. */
  trainSeconds: number;
  /** Everything else the trainer needs to continue exactly (config, options, data-source state, log window). */
  [key: string]: unknown;
}

export interface Checkpoint {
  header: CheckpointHeader;
  /** Named float32 tensors, in file order. */
  tensors: Record<string, Float32Array>;
}

interface StoredHeader extends CheckpointHeader {
  tensors: { name: string; length: number }[];
}

/** The file's bytes as parts (prefix + header, each tensor's bytes), without the digest. */
function encodeParts(ckpt: Checkpoint): Uint8Array[] {
  const stored: StoredHeader = {
    ...ckpt.header,
    tensors: Object.entries(ckpt.tensors).map(([name, t]) => ({ name, length: t.length })),
  };
  const json = Buffer.from(JSON.stringify(stored), 'utf8');
  const padded = Buffer.alloc(Math.ceil(json.length / 4) * 4, 0x20);
  json.copy(padded);
  const prefix = Buffer.alloc(PREFIX);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt16LE(VERSION, 6);
  prefix.writeUInt32LE(padded.length, 8);
  return [prefix, padded, ...Object.values(ckpt.tensors).map((t) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength))];
}

/** The whole file in memory (tests; the writer streams the same parts). */
export function encodeCheckpoint(ckpt: Checkpoint): Uint8Array {
  const parts = encodeParts(ckpt);
  const hash = createHash('sha256');
  for (const p of parts) hash.update(p);
  return Buffer.concat([...parts, hash.digest()]);
}

/**
 * Parses a checkpoint file's bytes; `source` names it in errors. Throws on anything but an intact checkpoint of this
 * format: another file, another version, a truncated or damaged one.
 */
export function decodeCheckpoint(bytes: Uint8Array, source: string): Checkpoint {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const where = `checkpoint ${source}`;
  if (buf.length < PREFIX || buf.toString('latin1', 0, 6) !== MAGIC) {
    throw new Error(`${where}: not a toolformer-ts training checkpoint (it does not start with "${MAGIC}")`);
  }
  const version = buf.readUInt16LE(6);
  if (version !== VERSION) throw new Error(`${where}: format version ${version}, this trainer reads version ${VERSION}`);
  const headerLength = buf.readUInt32LE(8);
  if (PREFIX + headerLength + DIGEST > buf.length) {
    throw new Error(`${where}: truncated (${buf.length} bytes, its header alone needs ${PREFIX + headerLength + DIGEST})`);
  }
  let header: StoredHeader;
  try {
    header = JSON.parse(buf.toString('utf8', PREFIX, PREFIX + headerLength)) as StoredHeader;
  } catch {
    throw new Error(`${where}: damaged (its header is not JSON)`);
  }
  const floats = header.tensors?.reduce((n, t) => n + t.length, 0);
  const expected = PREFIX + headerLength + 4 * (floats ?? NaN) + DIGEST;
  if (buf.length !== expected) {
    throw new Error(`${where}: truncated or damaged (${buf.length} bytes, its header says ${expected})`);
  }
  const body = buf.subarray(0, buf.length - DIGEST);
  const digest = createHash('sha256').update(body).digest();
  if (!digest.equals(buf.subarray(buf.length - DIGEST))) throw new Error(`${where}: damaged (SHA-256 mismatch)`);
  const tensors: Record<string, Float32Array> = {};
  let at = PREFIX + headerLength;
  for (const t of header.tensors) {
    // Copied out: the file buffer's offset need not be 4-byte aligned, and the caller may keep the arrays.
    tensors[t.name] = new Float32Array(body.buffer.slice(body.byteOffset + at, body.byteOffset + at + 4 * t.length));
    at += 4 * t.length;
  }
  const { tensors: _, ...rest } = header;
  return { header: rest, tensors };
}

/** Write `ckpt` to `path` so that a kill at any moment leaves the previous or the new checkpoint intact. */
export function writeCheckpoint(path: string, ckpt: Checkpoint): void {
  const tmp = `${path}.tmp`;
  const parts = encodeParts(ckpt);
  const hash = createHash('sha256');
  const fd = openSync(tmp, 'w');
  try {
    for (const p of parts) {
      hash.update(p);
      writeAll(fd, p);
    }
    writeAll(fd, hash.digest());
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  fsyncDirectory(dirname(path));
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Makes the rename durable; some file systems refuse to open a directory for fsync, which only costs durability. */
function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The one reader: the checkpoint at `path`, or undefined when there is none. */
export function readCheckpoint(path: string): Checkpoint | undefined {
  if (!existsSync(path)) {
    const legacy = `${dirname(path)}/ckpt.json`;
    if (existsSync(legacy)) {
      throw new Error(`${legacy}: a checkpoint in the earlier two-file format (ckpt.json + ckpt.bin), which has no data-source ` +
        `state and cannot be resumed exactly; start without --resume (or move it away)`);
    }
    return undefined;
  }
  return decodeCheckpoint(readBoundedFile(path, path, READ_CAPS.trainingCheckpoint), path);
}
