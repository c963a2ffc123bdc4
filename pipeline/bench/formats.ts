/**
 * `npm run bench:formats`: memory of the Parquet reader. Peak RSS of a process that reads a Parquet file of the
 * bundled corpus (corpus/sotu.jsonl + corpus/factbook.jsonl) once (1×) and of one that reads a file holding it ten
 * times (10×, distinct ids), through readCorpus as `annotate` does, one child process per read so each peak is its
 * own. The claim is the ratio of the two peaks in one run: near 1 means memory is one row group, not the file.
 * The same two reads of JSONL copies are the reference: what the reader itself holds as documents go by (the set of
 * ids seen, for duplicate-id reports) grows with the document count whatever the format.
 *
 *   npx tsx pipeline/bench/formats.ts [--row-group 1000] [--rounds 3]
 *
 * Writes pipeline/bench/results/formats.json and formats.md (committed; export/README.md shows the table). The files are made with hyparquet-writer a row group at a
 * time (never the whole 10× corpus in memory) in a temporary directory.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ParquetWriter, fileWriter } from 'hyparquet-writer';
import { type CorpusRecord, readJsonlRecords } from '../node/corpus/corpus-formats/fixtures.ts';
import { f } from './format.ts';
import { scriptFlag } from '../io/script-flag.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'pipeline/bench/results');
const arg = scriptFlag;
const ROW_GROUP = Number(arg('row-group', '1000'));
/** Reads of each file; each row is the median read's (peak RSS varies by a few MiB with GC timing). */
const ROUNDS = Number(arg('rounds', '3'));
/** The shared machine's 1-minute load average when the bench started (other engineers' work shares the cores). */
const LOAD_AT_START = loadavg()[0];
const log = (...xs: unknown[]) => console.error(`[bench:formats ${new Date().toISOString().slice(11, 19)}]`, ...xs);

/** Child mode: read one file through readCorpus, print {docs, errors, maxRssKiB}. */
if (process.argv[2] === '--read') {
  const { readCorpus } = await import('../node/corpus/read-corpus.ts');
  let docs = 0;
  let errors = 0;
  let textBytes = 0;
  for await (const item of readCorpus([process.argv[3]])) {
    if (item.kind === 'doc') {
      docs++;
      textBytes += item.doc.text.length;
    } else errors++;
  }
  console.log(JSON.stringify({ docs, errors, textBytes, maxRssKiB: process.resourceUsage().maxRSS }));
  process.exit(0);
}

const schema = ['id', 'text', 'source', 'date'].map((name) => ({ name, type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const, repetition_type: 'OPTIONAL' as const }));

/** `copies` times the records into one Parquet file, ROW_GROUP rows per row group, ids made distinct per copy. */
async function writeCopies(path: string, records: readonly CorpusRecord[], copies: number): Promise<void> {
  const writer = new ParquetWriter({ writer: fileWriter(path), schema: [{ name: 'root', num_children: schema.length }, ...schema] });
  for (let copy = 0; copy < copies; copy++) {
    for (let start = 0; start < records.length; start += ROW_GROUP) {
      const group = records.slice(start, start + ROW_GROUP);
      const column = (key: keyof CorpusRecord) => group.map((r) => (key === 'id' ? `${copy}/${r.id}` : r[key] ?? null));
      await writer.write({ columnData: schema.map((s) => ({ name: s.name, data: column(s.name as keyof CorpusRecord) })), rowGroupSize: group.length });
    }
  }
  await writer.finish();
}

/** The same copies as JSON Lines, streamed out. */
async function writeJsonlCopies(path: string, records: readonly CorpusRecord[], copies: number): Promise<void> {
  const out = createWriteStream(path);
  for (let copy = 0; copy < copies; copy++) {
    for (const r of records) if (!out.write(JSON.stringify({ ...r, id: `${copy}/${r.id}` }) + '\n')) await new Promise<void>((ok) => out.once('drain', () => ok()));
  }
  out.end();
  await finished(out);
}

const tmp = mkdtempSync(join(tmpdir(), 'bench-formats-'));
try {
  const records = ['sotu.jsonl', 'factbook.jsonl'].flatMap((name) => readJsonlRecords(join(ROOT, 'corpus', name)));
  const files = { one: join(tmp, 'corpus-1x.parquet'), ten: join(tmp, 'corpus-10x.parquet'), oneJsonl: join(tmp, 'corpus-1x.jsonl'), tenJsonl: join(tmp, 'corpus-10x.jsonl') };
  log(`writing ${records.length} records ×1 and ×10, ${ROW_GROUP} rows per row group`);
  await writeCopies(files.one, records, 1);
  await writeCopies(files.ten, records, 10);
  await writeJsonlCopies(files.oneJsonl, records, 1);
  await writeJsonlCopies(files.tenJsonl, records, 10);
  const readOnce = (path: string) => {
    const out = execFileSync(process.execPath, [...process.execArgv, import.meta.filename, '--read', path], { encoding: 'utf8', maxBuffer: 1 << 20 });
    return JSON.parse(out.trim().split('\n').at(-1)!) as { docs: number; errors: number; textBytes: number; maxRssKiB: number };
  };
  const read = (path: string) => {
    const reads = Array.from({ length: ROUNDS }, () => readOnce(path)).sort((a, b) => a.maxRssKiB - b.maxRssKiB);
    return { ...reads[Math.floor(ROUNDS / 2)], rssKiBEachRead: reads.map((r) => r.maxRssKiB) };
  };
  log('reading 1×');
  const one = { ...read(files.one), fileBytes: statSync(files.one).size };
  log('reading 10×');
  const ten = { ...read(files.ten), fileBytes: statSync(files.ten).size };
  log('reading JSONL 1× and 10× (reference)');
  const oneJsonl = { ...read(files.oneJsonl), fileBytes: statSync(files.oneJsonl).size };
  const tenJsonl = { ...read(files.tenJsonl), fileBytes: statSync(files.tenJsonl).size };
  const ratio = ten.maxRssKiB / one.maxRssKiB;
  const jsonlRatio = tenJsonl.maxRssKiB / oneJsonl.maxRssKiB;
  const r2 = (x: number) => Math.round(x * 100) / 100;
  const result = { date: new Date().toISOString().slice(0, 10), rowGroupRows: ROW_GROUP, parquet: { one, ten, peakRssRatio: r2(ratio) }, jsonl: { one: oneJsonl, ten: tenJsonl, peakRssRatio: r2(jsonlRatio) } };
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'formats.json'), JSON.stringify(result, null, 2) + '\n');
  const mib = (kib: number) => f(kib / 1024, 1);
  const row = (name: string, r: typeof one) => `| ${name} | ${f(r.docs)} | ${f(r.fileBytes / 2 ** 20, 1)} | ${f(r.textBytes / 1e6, 1)} | ${mib(r.maxRssKiB)} |`;
  const md = [
    '# Parquet reader memory',
    '',
    `${result.date}, ${ROW_GROUP} rows per row group, \`npm run bench:formats\` (one child process per read; the machine's load average at the start: ${LOAD_AT_START.toFixed(1)}):`,
    '',
    '| file | documents | file MiB | text, M chars | peak RSS MiB |',
    '| --- | ---: | ---: | ---: | ---: |',
    row('Parquet, bundled corpus 1×', one),
    row('Parquet, bundled corpus 10×', ten),
    row('JSONL 1× (reference)', oneJsonl),
    row('JSONL 10× (reference)', tenJsonl),
    '',
    `Peak RSS 10× / 1×, median of ${ROUNDS} reads each: Parquet **${f(ratio, 2)}**, JSONL ${f(jsonlRatio, 2)} (the reference: its reader holds one line at a time). Parquet grows by ${mib(ten.maxRssKiB - one.maxRssKiB)} MiB, JSONL by ${mib(tenJsonl.maxRssKiB - oneJsonl.maxRssKiB)} MiB, for ${f(ten.textBytes / 1e6, 0)} M characters of text: not the file. Part of what grows in both is the reader's set of ids seen (for duplicate-id reports; estimated at ~10 MiB for 115,060 ids, not measured); the rest, heap slack, is not pinned down here.`,
    '',
  ].join('\n');
  writeFileSync(join(OUT, 'formats.md'), md);
  console.log(md);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
