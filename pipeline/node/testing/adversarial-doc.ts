/**
 * The adversarial document of issue 23 (hostile input), for the search-budget test and the measurements in
 * pipeline/node/README.md ("Measured"). At scale 1 it is the 1 MiB record measured there: 945,006 characters —
 * 362k letters then a digit, a word of 100k apostrophes, 20k "In 1999", 50k unclosed «, 30k quotes, 15k "St. ×a",
 * 3k lines of arithmetic prose — each a pattern that once made a text helper or the tokenizer quadratic.
 *
 *   npx tsx pipeline/node/testing/adversarial-doc.ts <out.jsonl> [--layout runs|blocks|all-tools]
 *
 * `runs` (default): the sections one after another. `blocks`: the same sections cut into 512-character blocks and
 * interleaved, with a date, so that a document's first tokens hold every kind (the Calculator and Calendar
 * pre-filters pass there). `all-tools`: `blocks` behind the Mexico government paragraph of corpus/sample.jsonl, so
 * that all four pre-filters pass; the same length.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/** The sections at `scale` (1: the 1 MiB document; 64 KB is about 0.07), in document order. */
export function adversarialSections(scale = 1): string[] {
  const times = (n: number) => Math.max(1, Math.round(n * scale));
  return [
    'a'.repeat(times(362_000)) + '1 b',
    "'".repeat(times(100_000)) + 'c ',
    'In 1999 '.repeat(times(20_000)),
    '«'.repeat(times(50_000)) + ' ',
    '"a '.repeat(times(30_000)),
    'St. ×a'.repeat(times(15_000)) + ' ',
    'The total of 12 and 30 is 42.  '.repeat(times(3_000)).slice(0, -1),
  ];
}

/** The sections one after another (layout `runs`). */
export function adversarialText(scale = 1): string {
  return adversarialSections(scale).join('');
}

/** The sections cut into `block`-character pieces, taken round-robin (layout `blocks`). */
export function interleavedText(scale = 1, block = 512): string {
  const pieces = adversarialSections(scale).map((s) => Array.from({ length: Math.ceil(s.length / block) }, (_, i) => s.slice(i * block, (i + 1) * block)));
  const out: string[] = [];
  for (let j = 0; j < Math.max(...pieces.map((p) => p.length)); j++) for (const p of pieces) if (j < p.length) out.push(p[j]);
  return out.join('');
}

function main(): void {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { layout: { type: 'string', default: 'runs' } } });
  const [out] = positionals;
  if (!out) throw new Error('usage: adversarial-doc.ts <out.jsonl> [--layout runs|blocks|all-tools]');
  const date = '2001-06-30';
  let record: { id: string; text: string; date?: string };
  if (values.layout === 'runs') record = { id: 'adversarial-1mib', text: adversarialText() };
  else if (values.layout === 'blocks') record = { id: 'adversarial-1mib-blocks', text: interleavedText(), date };
  else if (values.layout === 'all-tools') {
    const sample = readFileSync(join(import.meta.dirname, '../../../corpus/sample.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const head: string = sample.find((d) => d.id === 'factbook/north-america/mx/government/0').text;
    const text = `${head} ${interleavedText()}`.slice(0, adversarialText().length);
    record = { id: 'adversarial-1mib-all-tools', text, date };
  } else throw new Error(`--layout is runs, blocks or all-tools (got ${values.layout})`);
  writeFileSync(out, JSON.stringify(record) + '\n');
  console.log(`wrote ${out}: ${record.text.length} characters, ${Buffer.byteLength(JSON.stringify(record)) + 1} bytes`);
}

if (process.argv[1] && import.meta.filename === process.argv[1]) main();
