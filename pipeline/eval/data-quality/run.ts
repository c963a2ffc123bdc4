/**
 * `npm run eval:data [-- --split dev|test|all] [--eval-out dir] [--no-run] [annotate flags…]`
 *
 * Runs `toolformer annotate` on the labelled passages (default config; any other flag is passed through, e.g.
 * `--tau-f 0.5 --no-lm-proposals`), then scores the calls it kept (those inlined in train.jsonl) against the labels:
 * per tool and overall, on dev and on test, precision, recall and kept calls per 100 passages. Prints a table and
 * writes <eval-out>/report.json and <eval-out>/report.md; the annotate run is in <eval-out>/run/.
 * Tune on `--split dev` only: the test split is for the numbers the README reports.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { LabelFileError, TOOLS, loadLabelledSet, type Split } from './labels.ts';
import { type KeptCall, type Report, evaluate } from './match.ts';
import { readJsonl } from '../../io/jsonl.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

interface Options {
  split: Split | 'all';
  evalOut: string;
  run: boolean;
  passthrough: string[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { split: 'all', evalOut: 'out/eval-data', run: true, passthrough: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--split') {
      const v = value();
      if (v !== 'dev' && v !== 'test' && v !== 'all') throw new Error(`--split must be dev, test or all (got ${v})`);
      o.split = v;
    } else if (a === '--eval-out') o.evalOut = value();
    else if (a === '--no-run') o.run = false;
    else if (a === '--out' || a === '--resume' || a === '--overwrite') throw new Error(`${a} is set by eval:data (use --eval-out <dir>)`);
    else o.passthrough.push(a);
  }
  return o;
}

function fmt(x: number | null): string {
  return x === null ? '–' : x.toFixed(2);
}

export function markdownTable(report: Report, splits: readonly Split[]): string {
  const rows = ['| split | tool | labels | kept | kept correct | precision | recall | kept / 100 passages |', '|---|---|--:|--:|--:|--:|--:|--:|'];
  for (const split of splits) {
    for (const t of [...TOOLS, 'all'] as const) {
      const s = report[split][t];
      const name = t === 'all' ? '**all**' : t;
      rows.push(`| ${split} | ${name} | ${s.labels} | ${s.kept} | ${s.keptCorrect} | ${fmt(s.precision)} | ${fmt(s.recall)} | ${s.keptPer100.toFixed(1)} |`);
    }
  }
  return rows.join('\n');
}

function main(): void {
  const opts = parseArgs(process.argv.slice(2));
  const all = loadLabelledSet();
  const passages = opts.split === 'all' ? all : all.filter((p) => p.split === opts.split);
  const splits: Split[] = opts.split === 'all' ? ['dev', 'test'] : [opts.split];
  const evalOut = resolve(ROOT, opts.evalOut);
  const runDir = resolve(evalOut, 'run');
  const input = resolve(evalOut, 'passages.jsonl');
  mkdirSync(evalOut, { recursive: true });
  if (opts.run) {
    writeFileSync(input, passages.map((p) => JSON.stringify({ id: p.id, text: p.text, source: p.source, ...(p.date ? { date: p.date } : {}) })).join('\n') + '\n');
    const args = ['tsx', resolve(ROOT, 'pipeline/node/cli/cli.ts'), 'annotate', input, '--out', runDir, '--overwrite', ...opts.passthrough];
    console.error(`eval:data: ${passages.length} passages (${splits.join(' + ')}) → npx ${args.slice(1).map((a) => a.replace(ROOT + '/', '')).join(' ')}`);
    const r = spawnSync('npx', args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error(`annotate exited with ${r.status ?? r.signal}`);
  }
  const kept: KeptCall[] = [];
  for (const rec of readJsonl<{ id: string; calls: Array<Omit<KeptCall, 'docId'>> }>(resolve(runDir, 'train.jsonl'))) {
    for (const c of rec.calls) kept.push({ docId: rec.id, tool: c.tool, input: c.input, result: c.result, at: c.at });
  }
  const ids = new Set(passages.map((p) => p.id));
  const { report, judged, missed } = evaluate(passages, kept.filter((c) => ids.has(c.docId)));
  const config = JSON.parse(readFileSync(resolve(runDir, 'config.json'), 'utf8')) as Record<string, unknown>;
  const table = markdownTable(report, splits);
  console.log(table);
  const flags = opts.passthrough.join(' ') || '(defaults)';
  writeFileSync(
    resolve(evalOut, 'report.md'),
    `# eval:data — annotate ${flags}\n\n${passages.length} labelled passages (${splits.join(', ')}). A kept call is correct when it matches a label: same tool, same position within a token, correct result (pipeline/eval/data-quality/README.md).\n\n${table}\n`,
  );
  const short = (s: string, at: number) => s.slice(Math.max(0, at - 60), at).replace(/\n/g, ' ') + ' ‸ ' + s.slice(at, at + 30).replace(/\n/g, ' ');
  writeFileSync(
    resolve(evalOut, 'report.json'),
    JSON.stringify(
      {
        flags: opts.passthrough,
        model: config.model,
        splits,
        report: Object.fromEntries(splits.map((s) => [s, report[s]])),
        kept: judged.map((j) => ({ id: j.passage.id, split: j.passage.split, tool: j.call.tool, input: j.call.input, result: j.call.result, at: j.call.at, correct: j.label !== null, context: short(j.passage.text, j.call.at) })),
        missed: missed.map((m) => ({ id: m.passage.id, split: m.passage.split, tool: m.label.tool, at: m.label.at, call: m.label.call, result: m.label.result, context: short(m.passage.text, m.label.at) })),
      },
      null,
      2,
    ) + '\n',
  );
  console.error(`eval:data: wrote ${opts.evalOut}/report.json and report.md`);
}

try {
  main();
} catch (e) {
  console.error(`eval:data: ${e instanceof LabelFileError || e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
