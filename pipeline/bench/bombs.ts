/**
 * `npm run bench:bombs`: the full-size hostile inputs of issue 32, each run once as a user would —
 * `/usr/bin/time -v toolformer annotate <file> …` with the tiny test model (models/tiny-random), so the numbers are
 * the reader's and the CLI's, not a model's — and written to pipeline/bench/results/bombs.md (the table that
 * pipeline/node/README.md's Reliability section shows). The files are made here (nothing committed) in a temp folder:
 *
 *   window bomb       a 4 KB .jsonl.zst frame declaring a 1.875 GiB window, 1,000 RLE blocks of 128 KiB "a"
 *   newline bomb      1 GiB of "\n" (.jsonl.zst: 8,192 RLE blocks; .jsonl.gz: gzip -1)
 *   sandwich          record / 1 GiB of "a" / record (.jsonl.zst and .jsonl.gz)
 *   Parquet bomb      4,500 distinct ~1 MiB strings in one GZIP row group (DuckDB), read with --max-docs 2, with
 *                     a record cap under the cell size (every cell a bad record: the whole file decoded), and with a
 *                     read budget under one page (the row group refused in one line)
 *   Parquet page bomb four columns, each one GZIP page of 256 cells of 1 MiB (4.7 MB on disk): every page declares
 *                     more than the 128 MiB budget and is refused from its header, before it is decompressed
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { writeGzipRun, writeParquetPageBomb, zstdRun, zstdWindowBomb } from '../node/corpus/corpus-formats/bombs.ts';
import { TOOL_NAMES } from '../core/tools/registry.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** One built-in tool (the registry's first) keeps the runs cheap: the reader is what is measured. */
const ONE_TOOL = TOOL_NAMES[0];
const BIN = join(ROOT, 'pipeline/node/bin.mjs');
const MODEL = join(ROOT, 'models/tiny-random');
const OUT = join(ROOT, 'pipeline/bench/results/bombs.md');
const GiB = 2 ** 30;
const record = (id: string) => JSON.stringify({ id, text: `We paid 30 dollars for 3 books, 10 dollars each (${id}).` });

interface Case {
  name: string;
  file: string;
  make: (path: string) => Promise<void> | void;
  flags?: string[];
}

async function writeParquetBomb(path: string): Promise<void> {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const c = await db.connect();
  // md5(i) repeated 32,768 times: 1 MiB per string, every string distinct (no dictionary can share them).
  await c.run(`COPY (SELECT i::BIGINT AS id, repeat(md5(i::VARCHAR), 32768) AS text FROM range(4500) t(i)) TO '${path}' (FORMAT parquet, COMPRESSION gzip, ROW_GROUP_SIZE 100000)`);
  c.closeSync();
}

const CASES: Case[] = [
  { name: 'zstd window bomb (1.875 GiB window declared)', file: 'window-bomb.jsonl.zst', make: (p) => writeFileSync(p, zstdWindowBomb()) },
  { name: 'zstd newline bomb (1 GiB of "\\n")', file: 'newlines.jsonl.zst', make: (p) => writeFileSync(p, zstdRun('', 10, GiB, '')) },
  { name: 'gzip newline bomb (1 GiB of "\\n")', file: 'newlines.jsonl.gz', make: (p) => writeGzipRun(p, '', 10, GiB, '') },
  { name: 'zstd sandwich (record / 1 GiB of "a" / record)', file: 'sandwich.jsonl.zst', make: (p) => writeFileSync(p, zstdRun(`${record('first')}\n`, 0x61, GiB, `\n${record('last')}\n`)) },
  { name: 'gzip sandwich (record / 1 GiB of "a" / record)', file: 'sandwich.jsonl.gz', make: (p) => writeGzipRun(p, `${record('first')}\n`, 0x61, GiB, `\n${record('last')}\n`) },
  { name: 'Parquet bomb, --max-docs 2', file: 'bomb.parquet', make: writeParquetBomb, flags: ['--max-docs', '2'] },
  { name: 'Parquet bomb, --max-record-bytes 1000000 (every cell too long)', file: 'bomb.parquet', make: () => {}, flags: ['--max-record-bytes', '1000000'] },
  { name: 'Parquet bomb, --max-row-group-bytes 1000000 (a page over the budget)', file: 'bomb.parquet', make: () => {}, flags: ['--max-row-group-bytes', '1000000'] },
  { name: 'Parquet page bomb (text, id, source, date: one 256 MiB GZIP page each), --max-docs 2', file: 'page-bomb.parquet', make: (p) => writeParquetPageBomb(p, 256, record('last'), ['text', 'id', 'source', 'date']), flags: ['--max-docs', '2'] },
];

function field(stderr: string, name: string): number {
  const m = new RegExp(`${name}[^:]*: ([\\d.:]+)`).exec(stderr);
  return m ? Number(m[1]) : NaN;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'bombs-'));
  const rows: string[] = [];
  try {
    for (const [i, c] of CASES.entries()) {
      await c.make(join(dir, c.file));
      const size = readFileSync(join(dir, c.file)).length;
      const child = spawnTimed(dir, c, i);
      const stats = JSON.parse(readFileSync(join(child.out, 'stats.json'), 'utf8'));
      const errors = readFileSync(join(child.out, 'errors.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { code: string; reason: string });
      const codes = Object.entries(errors.reduce<Record<string, number>>((n, e) => ((n[e.code] = (n[e.code] ?? 0) + 1), n), {})).map(([k, v]) => `${v} ${k}`);
      const first = errors[0]?.reason.replace(/\|/g, '\\|').slice(0, 110) ?? '';
      rows.push(`| ${c.name} | ${size.toLocaleString('en')} | ${child.code} | ${child.cpu.toFixed(2)} | ${child.rssMb.toFixed(0)} | ${stats.docsRead} | ${codes.join(', ') || 'none'} | ${first} |`);
      console.log(rows.at(-1));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const header = [
    '# Hostile inputs, measured (`npm run bench:bombs`)',
    '',
    `Each file made by pipeline/bench/bombs.ts and read once by \`/usr/bin/time -v toolformer annotate <file> --tools ${ONE_TOOL} --no-lm-proposals --model models/tiny-random\`; ${new Date().toISOString().slice(0, 10)}, ${process.platform} ${process.arch}, Node ${process.version}. CPU = user + system seconds; RSS = peak.`,
    '',
    '| Case | File bytes | Exit | CPU s | Peak RSS MB | Docs read | Bad records | First bad record |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  writeFileSync(OUT, [...header, ...rows, ''].join('\n'));
  console.log(`wrote ${OUT}`);
}

/** Run one case under /usr/bin/time -v: exit code, CPU seconds (user + system) and peak RSS (MB) from time's report. */
function spawnTimed(dir: string, c: Case, index: number) {
  const out = join(dir, `run-${index}`);
  const args = [BIN, 'annotate', join(dir, c.file), '--out', out, '--quiet', '--workers', '1', '--tools', ONE_TOOL, '--no-lm-proposals', '--model', MODEL, ...(c.flags ?? [])];
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 64 << 20 });
  const stderr = String(r.stderr);
  if (r.status !== 0) throw new Error(`${c.name}: exit ${r.status}: ${stderr.slice(0, 400)}`);
  return { code: r.status, cpu: field(stderr, 'User time') + field(stderr, 'System time'), rssMb: field(stderr, 'Maximum resident set size') / 1024, out };
}

await main();
