/**
 * Two-pass scoring on `npm start`'s own run (issue 28 item 1), the three floors side by side in one run of this
 * script: the same annotate (two-pass-child.ts: corpus/sample.jsonl, the CLI's defaults and probes, models/default)
 * in three processes under /usr/bin/time, with
 *   --tau-f-floor -1e9   every call's L_b scored (as before two-pass scoring),
 *   the default floor 0  L_b only where L_a − L_c ≥ min(τ_f, 0): stats.json's τ_f grid stays exact,
 *   --tau-f-floor tau-f  L_b only where L_a − L_c ≥ the tool's τ_f: what the run's verdicts need (the grid below τ_f
 *                        counts the rest as undecided).
 * Checks that kept calls, L_a and L_c are identical in all three and that the only lines of calls.jsonl that differ
 * from the first run's are the skipped L_b (callOnly and usefulness gone, usefulnessAtMost = L_a − L_c instead).
 *
 *   npx tsx pipeline/bench/two-pass.ts            → pipeline/bench/results/two-pass.{json,md}
 *   npx tsx pipeline/bench/two-pass.ts --render   (the .md again from the .json)
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const RESULTS = join(ROOT, 'pipeline/bench/results');
const FLOORS = [
  { tauFFloor: -1e9, name: 'every L_b', flag: '--tau-f-floor -1e9' },
  { tauFFloor: 0, name: 'the default floor', flag: 'default 0' },
  { tauFFloor: 'tau-f', name: "the tools' τ_f", flag: '--tau-f-floor tau-f' },
] as const;

interface Measured {
  tauFFloor: number | 'tau-f';
  sequences: number;
  paddedTokens: number;
  scored: number;
  kept: number;
  /** Calls whose L_b was skipped (calls.jsonl: losses without callOnly). */
  skippedCallOnly: number;
  /** /usr/bin/time: user + system CPU seconds, wall seconds, peak RSS MiB. */
  cpuSeconds: number;
  wallSeconds: number;
  peakRssMiB: number;
}

type Call = Record<string, unknown> & { kept?: boolean; losses?: { callOnly?: number }; usefulnessAtMost?: number };

function run(tauFFloor: number | 'tau-f', outDir: string): { measured: Measured; calls: Call[] } {
  mkdirSync(outDir, { recursive: true });
  const timeFile = join(outDir, 'time.txt');
  const stdout = execFileSync('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %e %M', process.execPath, '--import', 'tsx', join(ROOT, 'pipeline/bench/two-pass-child.ts'), String(tauFFloor), join(outDir, 'run')], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const [user, system, wall, maxKb] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  const counts = JSON.parse(stdout.trim().split('\n').at(-1)!);
  const calls = readFileSync(join(outDir, 'run/calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Call);
  const skippedCallOnly = calls.filter((c) => c.losses && c.losses.callOnly === undefined).length;
  return { measured: { tauFFloor, ...counts, skippedCallOnly, cpuSeconds: user + system, wallSeconds: wall, peakRssMiB: maxKb / 1024 }, calls };
}

/** Lines of `after` that differ from `before` in more than a skipped L_b (1-based line numbers). */
function differences(before: Call[], after: Call[]): string[] {
  if (before.length !== after.length) return [`calls.jsonl lengths differ: ${before.length} vs ${after.length}`];
  const out: string[] = [];
  before.forEach((b, i) => {
    const a = after[i];
    if (a.losses && a.losses.callOnly === undefined && b.losses?.callOnly !== undefined) {
      const { usefulness: _u, losses: bl, ...bRest } = b as Call & { losses: { callOnly: number } };
      const { usefulnessAtMost: _m, losses: al, ...aRest } = a;
      const { callOnly: _c, ...blRest } = bl;
      if (JSON.stringify({ ...bRest, losses: blRest }) !== JSON.stringify({ ...aRest, losses: al })) out.push(`line ${i + 1}`);
    } else if (JSON.stringify(b) !== JSON.stringify(a)) out.push(`line ${i + 1}`);
  });
  return out;
}

interface Result {
  what: string;
  date: string;
  machine: string;
  runs: Measured[];
  lossCalls: number;
  keptIdentical: boolean;
  otherLinesIdentical: boolean;
  differences: string[];
}

function render(r: Result): string {
  const [all] = r.runs;
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '—');
  const rows = r.runs.map((m, i) => {
    const f = FLOORS[i];
    return `| ${f.name} (${f.flag}) | ${(m.scored - m.skippedCallOnly).toLocaleString('en-US')} | ${m.sequences.toLocaleString('en-US')} | ${m.paddedTokens.toLocaleString('en-US')} | ${m.cpuSeconds.toFixed(1)} | ${ratio(all.cpuSeconds, m.cpuSeconds)} | ${m.wallSeconds.toFixed(1)} | ${Math.round(m.peakRssMiB)} | ${m.kept} |`;
  });
  return [
    `Measured by \`npx tsx pipeline/bench/two-pass.ts\` (${r.date}): ${r.what}; ${r.machine}.`,
    '',
    `Of ${r.lossCalls.toLocaleString('en-US')} calls with losses: kept calls ${r.keptIdentical ? 'identical in the three runs' : 'DIFFER between the runs'}; calls.jsonl ${r.otherLinesIdentical ? 'differs only in the skipped L_b' : `differs elsewhere too (${r.differences.join(', ')})`}.`,
    '',
    '| L_b scored for | calls with an L_b | loss sequences | padded tokens | CPU s | CPU: every L_b / this | wall s | peak RSS MiB | kept |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...rows,
    '',
  ].join('\n');
}

function write(result: Result): void {
  writeFileSync(join(RESULTS, 'two-pass.json'), JSON.stringify(result, null, 2) + '\n');
  writeFileSync(join(RESULTS, 'two-pass.md'), render(result));
}

if (process.argv.includes('--render')) {
  write(JSON.parse(readFileSync(join(RESULTS, 'two-pass.json'), 'utf8')) as Result);
} else {
  const tmp = mkdtempSync(join(tmpdir(), 'two-pass-'));
  try {
    const runs = FLOORS.map((f, i) => run(f.tauFFloor, join(tmp, String(i))));
    const [first, ...rest] = runs;
    const diffs = rest.flatMap((r, i) => differences(first.calls, r.calls).map((d) => `${FLOORS[i + 1].name}: ${d}`));
    const keptOf = (calls: Call[]) => JSON.stringify(calls.filter((c) => c.kept));
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
    write({
      what: "npm start's annotate (corpus/sample.jsonl, models/default, the CLI's defaults and probes, one process each), with L_b scored for every call, above the default floor, and above the tools' τ_f",
      date: new Date().toISOString().slice(0, 10),
      machine: `${process.platform} ${process.arch}, 2 cores, load ${load} at the end (CPU seconds are the measure on a shared machine)`,
      runs: runs.map((r) => r.measured),
      lossCalls: first.calls.filter((c) => c.losses).length,
      keptIdentical: runs.every((r) => keptOf(r.calls) === keptOf(first.calls)),
      otherLinesIdentical: diffs.length === 0,
      differences: diffs.slice(0, 10),
    });
    console.log(readFileSync(join(RESULTS, 'two-pass.md'), 'utf8'));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
