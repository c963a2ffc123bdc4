/**
 * A child process for the Vulkan tests (the Vulkan driver is chosen by the environment when llama.cpp starts, so
 * each device runs in its own process): scores the first documents of corpus/sample.jsonl on a GGUF file and prints
 * one JSON line {tokenLogProbs, probeLogProbs} per request (64 tokens at most); a load failure is its one line on stderr, exit 1.
 *
 *   npx tsx pipeline/node/model/lm-backends/llama-cpp-score.ts <file.gguf> <device> <documents>
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../system/package-paths.ts';
import { loadLlamaCpp, type LlamaCppDevice } from './llama-cpp.ts';

const [file, device, documents] = process.argv.slice(2);
try {
  const lm = await loadLlamaCpp(file, { device: device as LlamaCppDevice, threads: 1 });
  const probe = lm.encode(' [')[0];
  const texts = readFileSync(join(PACKAGE_ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').slice(0, Number(documents)).map((l) => JSON.parse(l).text as string);
  const batch = texts.map((text) => ({ ids: [lm.bosId!, ...lm.encode(text)].slice(0, Math.min(lm.maxLength, 64)), probe }));
  for (const r of await lm.score(batch)) console.log(JSON.stringify({ tokenLogProbs: Array.from(r.tokenLogProbs), probeLogProbs: Array.from(r.probeLogProbs!) }));
  process.exit(0);
} catch (error) {
  console.error(`toolformer: ${(error as Error).message}`);
  process.exit(1);
}
