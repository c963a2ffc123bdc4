/**
 * The sliced old-against-new bench's record (old-vs-new-sliced.ts) and its Markdown: a run too long for one sitting
 * (200 documents at the 135M shape: hours of both cores), measured as slices of documents, each slice old and new back
 * to back on the same machine, the totals summed over the slices measured so far.
 */
import { f, ratio, sequences, STAGE_NOTES, STAGES, stageOf, trainComparison, type OldVsNew, type SideRun } from './old-vs-new-format.ts';

/** One slice: both sides' annotate of the same documents, back to back (old-vs-new.ts's round, plus when and where). */
export type SliceRun = OldVsNew['runs'][number] & {
  /** 1-based. */
  slice: number;
  date: string;
  /** The machine and its load average between the two runs. */
  machine: string;
};

export interface SlicedOldVsNew {
  name: string;
  command: string;
  model: string;
  modelFileMiB: number;
  /** SHA-256 of onnx/model.onnx: a later slice, maybe on another machine, runs only on the same weights. */
  modelSha256: string;
  /** The annotated files; the documents are the first docs / inputs.length of each, taken in turn. */
  inputs: string[];
  docs: number;
  sliceDocs: number;
  oldCommit: string;
  /** The new side's commit, fixed at the first slice (a checkout of it runs every later slice). */
  newCommit: string;
  slices: SliceRun[];
}

export const sliceCount = (r: Pick<SlicedOldVsNew, 'docs' | 'sliceDocs'>) => Math.ceil(r.docs / r.sliceDocs);

/** A side's totals over the slices measured: sums (CPU, wall, counts), maxima (peak RSS), the probes counted once. */
export interface SideTotals {
  wallAsRun: number;
  wall: number;
  cpuAsRun: number;
  cpu: number;
  scored: number;
  callOnlyScored: number;
  sequences: number;
  kept: number;
  peakRssMiB: number;
  stages: Record<(typeof STAGES)[number], { cpuSeconds: number; wallSeconds: number; peakRssMiB: number }>;
}

/**
 * Both sides compute the probes in every slice (an empty verdict cache each time; the verdict depends only on the
 * model, seed and tools, so a single run computes it once): every slice after the first has its probe stage's CPU and
 * wall taken out of the totals. `wallAsRun` and `cpuAsRun` keep them.
 */
export function sideTotals(slices: readonly SliceRun[], side: 'old' | 'new'): SideTotals {
  const runs: SideRun[] = slices.map((s) => s[side]);
  const repeatedProbe = runs.slice(1).map((r) => stageOf(r, 'probe'));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const wallAsRun = sum(runs.map((r) => r.wallSeconds));
  const cpuAsRun = sum(runs.map((r) => r.cpuSeconds));
  const stages = Object.fromEntries(STAGES.map((stage) => {
    const parts = runs.map((r) => stageOf(r, stage));
    const counted = stage === 'probe' ? parts.slice(0, 1) : parts;
    return [stage, { cpuSeconds: sum(counted.map((p) => p.cpuSeconds)), wallSeconds: sum(counted.map((p) => p.wallSeconds)), peakRssMiB: Math.max(0, ...parts.map((p) => p.peakRssMiB)) }];
  })) as SideTotals['stages'];
  return {
    wallAsRun,
    wall: wallAsRun - sum(repeatedProbe.map((p) => p.wallSeconds)),
    cpuAsRun,
    cpu: cpuAsRun - sum(repeatedProbe.map((p) => p.cpuSeconds)),
    scored: sum(runs.map((r) => r.scored)),
    callOnlyScored: sum(runs.map((r) => r.callOnlyScored ?? 0)),
    sequences: sum(runs.map(sequences)),
    kept: sum(runs.map((r) => r.keptCalls)),
    peakRssMiB: Math.max(0, ...runs.map((r) => r.peakRssMiB)),
    stages,
  };
}

export function slicedLines(r: SlicedOldVsNew): string[] {
  const n = sliceCount(r);
  const done = r.slices.length;
  const dates = [...new Set([r.slices[0]?.date.slice(0, 10), r.slices.at(-1)?.date.slice(0, 10)].filter(Boolean))].join(' to ');
  const perInput = Math.ceil(r.docs / r.inputs.length);
  const lines = [
    `Measured by \`${r.command}\`${dates ? ` (${dates})` : ''}: \`npm start\`'s annotate (the CLI's defaults, 2 worker processes) of ${r.docs} documents ` +
      `(the first ${perInput} of ${r.inputs.join(' and ')}, taken in turn) on ${r.model} (onnx/model.onnx ${f(r.modelFileMiB, 0)} MiB, fp32), ` +
      `${r.oldCommit} against ${r.newCommit}, in ${n} slices of ${r.sliceDocs} documents, each slice one annotate per side, back to back on one ` +
      'machine (old first in odd slices, new first in even ones). Both sides compute the probes in every slice (an empty verdict cache; ' +
      'the verdict depends only on the model, seed and tools, so one run computes it once): the totals count the first slice\'s probes only.',
    '',
  ];
  if (done === 0) return [...lines, 'No slice measured yet.'];
  const [o, m] = [sideTotals(r.slices, 'old'), sideTotals(r.slices, 'new')];
  const keptSame = r.slices.every((s) => s.keptIdentical);
  lines.push(
    `${done === n ? `All ${n} slices measured` : `**${done} of ${n} slices measured** (${done * r.sliceDocs} of ${r.docs} documents): the totals are of those; the bench resumes at slice ${done + 1}`}. ` +
      `Kept calls ${keptSame ? 'identical in every slice' : '**differ** in a slice'} (${o.kept} and ${m.kept} in all); ` +
      `train.jsonl ${r.slices.every((s) => s.trainIdentical) ? 'byte-identical in every slice' : r.slices.map((s) => `slice ${s.slice}: ${trainComparison(s)}`).join('; ')}.`,
    '',
    `| totals over ${done * r.sliceDocs} documents | old (${r.oldCommit}) | new (${r.newCommit}) | old / new |`,
    '|---|--:|--:|--:|',
    `| wall s (probes once) | ${f(o.wall)} | ${f(m.wall)} | ${ratio(o.wall, m.wall)} |`,
    `| wall s, the slices as run | ${f(o.wallAsRun)} | ${f(m.wallAsRun)} | ${ratio(o.wallAsRun, m.wallAsRun)} |`,
    `| CPU s, the process trees (probes once) | ${f(o.cpu)} | ${f(m.cpu)} | ${ratio(o.cpu, m.cpu)} |`,
    `| calls scored | ${o.scored} | ${m.scored} | |`,
    `| calls with an L_b | ${o.callOnlyScored} | ${m.callOnlyScored} | |`,
    `| sequences scored (L_a per position, L_b, L_c) | ${o.sequences} | ${m.sequences} | ${ratio(o.sequences, m.sequences)} |`,
    `| CPU s per scored call | ${f(o.cpu / Math.max(1, o.scored), 3)} | ${f(m.cpu / Math.max(1, m.scored), 3)} | ${ratio(o.cpu / Math.max(1, o.scored), m.cpu / Math.max(1, m.scored))} |`,
    `| peak RSS, largest process of any slice (MiB) | ${f(o.peakRssMiB, 0)} | ${f(m.peakRssMiB, 0)} | ${ratio(o.peakRssMiB, m.peakRssMiB)} |`,
    `| peak RSS / fp32 file | ${f(o.peakRssMiB / r.modelFileMiB, 2)} | ${f(m.peakRssMiB / r.modelFileMiB, 2)} | |`,
    '',
    '| stage | CPU s old | CPU s new | old / new | wall s old | wall s new | peak RSS MiB old | peak RSS MiB new | what |',
    '|---|--:|--:|--:|--:|--:|--:|--:|---|',
    ...STAGES.map((stage) => {
      const [a, b] = [o.stages[stage], m.stages[stage]];
      return `| ${stage} | ${f(a.cpuSeconds)} | ${f(b.cpuSeconds)} | ${ratio(a.cpuSeconds, b.cpuSeconds)} | ${f(a.wallSeconds)} | ${f(b.wallSeconds)} | ${f(a.peakRssMiB, 0)} | ${f(b.peakRssMiB, 0)} | ${STAGE_NOTES[stage]} |`;
    }),
    '',
    '| slice | measured | machine | wall s old / new | CPU s old / new | kept old / new |',
    '|--:|---|---|--:|--:|--:|',
    ...r.slices.map((s) => `| ${s.slice} | ${s.date.slice(0, 16).replace('T', ' ')} | ${s.machine} | ${f(s.old.wallSeconds, 0)} / ${f(s.new.wallSeconds, 0)} | ${f(s.old.cpuSeconds, 0)} / ${f(s.new.cpuSeconds, 0)} | ${s.old.keptCalls} / ${s.new.keptCalls}${s.keptIdentical ? '' : ' (**differ**)'} |`),
    '',
    'Stages: CPU and wall summed over the slices (in a slice, CPU over the parent and its workers, wall the longest any process had the stage active), ' +
      'peak RSS the largest VmRSS any process sampled every 50 ms while it was (pipeline/bench/stage-profile.mjs). ' +
      'The process-tree CPU also counts the apertium processes the translation tool starts.',
  );
  return lines;
}
