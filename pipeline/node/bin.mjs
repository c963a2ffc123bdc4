#!/usr/bin/env node
// `toolformer` entry point. `--version` and a `tools` output already printed once for these sources are answered in
// plain JavaScript (start-cache.mjs: no TypeScript loader, the bulk of a bare start); everything else runs the
// TypeScript CLI through tsx's loader (no build step).
import { answerWithoutLoader } from './start-cache.mjs';

if (!answerWithoutLoader(process.argv.slice(2))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli.ts');
}
