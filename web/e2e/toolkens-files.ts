/**
 * The toolkens files the browser tests open (toolkens.test.ts, toolkens-inference.test.ts): one trained in Node by
 * `toolformer toolkens train`'s own function (3 epochs at lr 1e-3 on the bundled run, seed 1) for models/default, and
 * the same rows recording another model's digest, which the page must refuse.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToolkens, encodeToolkens, type Toolkens } from '../../pipeline/core/toolkens/file.ts';
import { toolkensTrain } from '../../pipeline/node/commands/toolkens-command.ts';
import { BUNDLED_TRAIN } from '../src/ui/toolkens.ts';
import { repoRoot } from './serve.ts';

export const TOOLKENS_MODEL = join(repoRoot, 'models/default');

export interface ToolkensFiles {
  /** A fresh temporary directory holding both files (the caller removes it). */
  dir: string;
  nodeFile: string;
  foreignFile: string;
  /** The Node file's contents. */
  toolkens: Toolkens;
}

export async function writeToolkensFiles(prefix: string): Promise<ToolkensFiles> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const nodeFile = join(dir, 'node.safetensors');
  await toolkensTrain([join(repoRoot, BUNDLED_TRAIN)], {
    model: TOOLKENS_MODEL, out: nodeFile, seed: 1, lr: 1e-3, epochs: 3, batchSize: 64, val: 0.1, patience: 2, maxPositions: 200_000, quiet: true,
  });
  const toolkens = decodeToolkens(new Uint8Array(await readFile(nodeFile)));
  const foreignFile = join(dir, 'foreign.safetensors');
  await writeFile(foreignFile, encodeToolkens({ ...toolkens, meta: { ...toolkens.meta, modelDigest: 'f'.repeat(64) } }));
  return { dir, nodeFile, foreignFile, toolkens };
}
