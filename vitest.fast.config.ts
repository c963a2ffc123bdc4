/**
 * `npm run test:fast`: the inner loop — every test file that needs no model, browser, server or subprocess.
 * A file is slow when its source names one of SLOW (a runtime, a model directory, a process, a browser); everything
 * else runs here. `npm test` (vitest.config.ts) stays the full suite, and is what CI runs.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

const SLOW = [
  /onnxruntime|load-model|loadModel|ort-web|transformers/, // an ONNX Runtime session
  /models\/|tiny-random|MODEL\b|_MODEL/, // a model directory
  /child_process|cli-child|runCli|spawn|execFile|runProcess|apertium|redis/i, // a subprocess or a server
  /playwright|\/e2e\/|buildApp|buildAndServe|serveApp|serveDev/, // a browser or a web build
  /runAnnotate|annotate-run|finetune|trainSteps|gpt2\.ts|kernel/, // a whole run, training or the WASM kernel
];

/** `*.test.ts` files below `dir` (Node 20 has no fs.glob). */
const testFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'node_modules' ? [] : e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
const all = ['pipeline', 'web', 'corpus'].flatMap(testFiles);
const fast = all.filter((file) => !SLOW.some((marker) => marker.test(readFileSync(file, 'utf8')))).sort();

// Not mergeConfig: it would append to the full suite's include list instead of replacing it.
export default defineConfig({ ...base, test: { ...base.test, include: fast } });
