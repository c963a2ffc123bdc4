/**
 * `tsx pipeline/eval/build-data.ts <dir>`: the plain-text inputs of models/toolformer's C*, written to <dir>:
 *   kbprose.jsonl  tasks.ts trainDocs (KB prose for the eval families, train subjects only; 250 per family)
 *   factbook.jsonl / sotu.jsonl  the corpus documents listed in finetune-docs.json
 * `npm run build:toolformer` annotates them and finetunes (see the README).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trainDocs, type KbFact } from './tasks.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: tsx pipeline/eval/build-data.ts <dir>');
mkdirSync(dir, { recursive: true });
const here = (p: string) => new URL(p, import.meta.url);
const kb = JSON.parse(readFileSync(here('../data/kb.json'), 'utf8')) as { facts: KbFact[] };
const lists = JSON.parse(readFileSync(here('./finetune-docs.json'), 'utf8')) as { factbookCapitals: string[]; sotuNumbers: string[] };
const write = (name: string, rows: object[]) => writeFileSync(join(dir, name), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
write('kbprose.jsonl', trainDocs(kb.facts, { perFamily: 250 }));
const byId = (file: string) => new Map(readFileSync(here(`../../corpus/${file}`), 'utf8').split('\n').filter(Boolean)
  .map((l) => JSON.parse(l) as { id: string }).map((d) => [d.id, d]));
const pickIds = (file: string, ids: string[]) => {
  const docs = byId(file);
  return ids.map((id) => {
    const d = docs.get(id);
    if (!d) throw new Error(`${file}: no document ${id}`);
    return d;
  });
};
write('factbook.jsonl', pickIds('factbook.jsonl', lists.factbookCapitals));
write('sotu.jsonl', pickIds('sotu.jsonl', lists.sotuNumbers));
console.log(`wrote kbprose.jsonl, factbook.jsonl, sotu.jsonl to ${dir}`);
