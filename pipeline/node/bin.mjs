#!/usr/bin/env node
// `toolformer` entry point. `--version` and a `tools` output already printed once for these sources are answered in
// plain JavaScript (start-cache.mjs: no TypeScript loader, the bulk of a bare start); everything else runs the
// TypeScript CLI through tsx's loader (no build step).
import { endWithParent } from './system/child-guard.mjs';
import { answerWithoutLoader } from './cli/start-cache.mjs';

// Started by npm (`npx toolformer`, `npm exec`): npm relays SIGINT/SIGTERM, but a SIGKILLed npm cannot; this process
// then ends as if the signal had been relayed, instead of running on under init (issue 50).
if (process.env.npm_command) endWithParent();

if (!answerWithoutLoader(process.argv.slice(2))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./cli/cli.ts');
}
