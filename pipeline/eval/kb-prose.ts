/**
 * `tsx pipeline/eval/kb-prose.ts <out.jsonl> [perFamily]`: the finetuning texts of tasks.ts trainDocs (train
 * subjects only) as a JSONL corpus for `toolformer annotate`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { trainDocs, type KbFact } from './tasks.ts';

const [out, per] = process.argv.slice(2);
if (!out) throw new Error('usage: tsx pipeline/eval/kb-prose.ts <out.jsonl> [perFamily]');
const kb = JSON.parse(readFileSync(new URL('../data/kb.json', import.meta.url), 'utf8')) as { facts: KbFact[] };
const docs = trainDocs(kb.facts, { perFamily: per ? Number(per) : undefined });
writeFileSync(out, docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
console.log(`${docs.length} documents → ${out}`);
