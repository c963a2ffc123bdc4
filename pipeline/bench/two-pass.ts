/**
 * Two-pass scoring on `npm start`'s own run (issue 28 item 1), before and after in one run of this script: the same
 * annotate (two-pass-child.ts: corpus/sample.jsonl, the CLI's defaults and probes, models/default) in two processes
 * under /usr/bin/time, one with `--tau-f-floor -1e9` (every call's L_b scored, as before two-pass scoring) and one
 * with the default floor (L_b only where L_a − L_c ≥ min(τ_f, 0)). Checks that kept calls, L_a and L_c are identical
 * and that only skipped L_b differ in calls.jsonl.
 *
 *   npx tsx pipeline/bench/two-pass.ts            → pipeline/bench/results/two-pass.json
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const ALL_L_B = -1e9;

interface Measured {
  tauFFloor: number;
  sequences: number;
  paddedTokens: number;
  scored: number;
  kept: number;
  /** /usr/bin/time: user + system CPU seconds, wall seconds, peak RSS MiB. */
  cpuSeconds: number;
  wallSeconds: number;
  peakRssMiB: number;
  calls: Record<string, unknown>[];
}

function run(tauFFloor: number, outDir: string): Measured {
  mkdirSync(outDir, { recursive: true });
  const timeFile = join(outDir, 'time.txt');
  const stdout = execFileSync('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %e %M', process.execPath, '--import', 'tsx', join(ROOT, 'pipeline/bench/two-pass-child.ts'), String(tauFFloor), join(outDir, 'run')], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const [user, system, wall, maxKb] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  const counts = JSON.parse(stdout.trim().split('\n').at(-1)!);
  const calls = readFileSync(join(outDir, 'run/calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  return { tauFFloor, ...counts, cpuSeconds: user + system, wallSeconds: wall, peakRssMiB: maxKb / 1024, calls };
}

const tmp = mkdtempSync(join(tmpdir(), 'two-pass-'));
try {
  const before = run(ALL_L_B, join(tmp, 'before'));
  const after = run(0, join(tmp, 'after'));
  if (before.calls.length !== after.calls.length) throw new Error(`calls.jsonl lengths differ: ${before.calls.length} vs ${after.calls.length}`);
  let skipped = 0;
  const differences: string[] = [];
  before.calls.forEach((b, i) => {
    const a = after.calls[i] as { losses?: { callOnly?: number }; usefulnessAtMost?: number };
    if (a.losses && a.losses.callOnly === undefined) {
      skipped++;
      // The only change allowed: callOnly and usefulness gone, usefulnessAtMost = L_a − L_c in their place.
      const { usefulness: _u, losses: bl, ...bRest } = b as { usefulness?: number; losses: { callOnly: number } };
      const { usefulnessAtMost: _m, losses: al, ...aRest } = a as { usefulnessAtMost?: number; losses: object };
      const { callOnly: _c, ...blRest } = bl;
      if (JSON.stringify({ ...bRest, losses: blRest }) !== JSON.stringify({ ...aRest, losses: al })) differences.push(`line ${i + 1}`);
    } else if (JSON.stringify(b) !== JSON.stringify(a)) differences.push(`line ${i + 1}`);
  });
  const keptOf = (m: Measured) => JSON.stringify(m.calls.filter((c) => c.kept));
  const summary = (m: Measured) => {
    const { calls: _calls, ...rest } = m;
    return rest;
  };
  const result = {
    what: "npm start's annotate (corpus/sample.jsonl, models/default, CLI defaults and probes), every L_b scored (tauFFloor -1e9) vs two-pass (default floor 0)",
    machine: `${process.platform} ${process.arch}, load ${execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ')[0]} at the end (a shared machine: CPU seconds, not wall, are the measure)`,
    before: summary(before),
    after: summary(after),
    lossCalls: before.calls.filter((c) => c.losses).length,
    skippedCallOnly: skipped,
    keptIdentical: keptOf(before) === keptOf(after),
    otherLinesIdentical: differences.length === 0,
    differences: differences.slice(0, 10),
    ratios: {
      sequences: +(after.sequences / before.sequences).toFixed(4),
      paddedTokens: +(after.paddedTokens / before.paddedTokens).toFixed(4),
      cpuSeconds: +(after.cpuSeconds / before.cpuSeconds).toFixed(4),
    },
  };
  writeFileSync(join(ROOT, 'pipeline/bench/results/two-pass.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 2));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
