/** The old-vs-new bench's record (old-vs-new.ts) and its Markdown. */

/** One process's stage profile (stage-profile.mjs's JSON line). */
export interface ProcessProfile {
  pid: number;
  /** A forked worker of `annotate --workers N` (else the parent). */
  worker: boolean;
  stages: Record<string, { cpuSeconds: number; wallSeconds: number; calls: number; peakRssMiB: number }>;
  cpuSeconds: number;
  /** The process's CPU seconds when it first called the LM (start-up: load, tools, probes' set-up). */
  cpuSecondsAtFirstLm: number | null;
  /** VmHWM, MiB. */
  peakRssMiB: number;
}

export interface SideRun {
  side: 'old' | 'new';
  /** The commit run. */
  root: string;
  docs: number;
  wallSeconds: number;
  /** User + system CPU of the whole process tree (/usr/bin/time). */
  cpuSeconds: number;
  /** The largest process's peak RSS (/usr/bin/time %M), MiB. */
  peakRssMiB: number;
  /** Calls scored (stats.json, every tool). */
  scored: number;
  keptCalls: number;
  /**
   * From calls.jsonl: the calls that got an L_b, and the positions they were scored at (one L_a each). Absent in
   * results from before the count.
   */
  callOnlyScored?: number;
  positionsScored?: number;
  processes: ProcessProfile[];
}

export interface OldVsNew {
  name: string;
  date: string;
  command: string;
  machine: string;
  model: string;
  modelFileMiB: number;
  /** --max-docs, or null: all of the input (corpus/sample.jsonl's 30, as `npm start`). */
  docs: number | null;
  /** The annotated files (--input, comma-separated); absent in results from before the flag: corpus/sample.jsonl. */
  inputs?: string[];
  oldCommit: string;
  runs: { order: ('old' | 'new')[]; old: SideRun; new: SideRun; keptIdentical: boolean; trainIdentical: boolean;
    /** When train.jsonl differs: the largest |Δ| of a stored loss when nothing else does, null when more differs. */
    trainLossDelta?: number | null }[];
  keptIdenticalInEveryRound: boolean;
}

export const STAGES = ['probe', 'p_i', 'propose', 'execute', 'score', 'control', 'commit', 'outside'] as const;
export const STAGE_NOTES: Record<(typeof STAGES)[number], string> = {
  probe: 'the probes before the run (bare-text, sampling)',
  p_i: 'p_i over each document under each tool’s prompt',
  propose: 'LM-proposed calls (sampling)',
  execute: 'the tools’ runs',
  score: 'L_a, L_b, L_c',
  control: 'the distractor’s L_c',
  commit: 'the run’s files',
  outside: 'the rest: start-up, tokenizing, planning, waiting on the pipe',
};

export const f = (x: number, digits = 1) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
export const ratio = (a: number, b: number) => (b > 0 && a > 0 ? `${f(a / b, 2)}×` : '—');

/** Sum (CPU), max (wall, peak RSS) of a stage over a run's processes. */
export function stageOf(run: SideRun, stage: string) {
  const parts = run.processes.map((p) => p.stages[stage]).filter((s) => s !== undefined);
  return {
    cpuSeconds: parts.reduce((s, p) => s + p.cpuSeconds, 0),
    wallSeconds: Math.max(0, ...parts.map((p) => p.wallSeconds)),
    peakRssMiB: Math.max(0, ...parts.map((p) => p.peakRssMiB)),
    calls: parts.reduce((s, p) => s + p.calls, 0),
  };
}

/** train.jsonl old against new: identical, or different only in stored losses' last digits, or different. */
export function trainComparison(run: OldVsNew['runs'][number]): string {
  if (run.trainIdentical) return 'byte-identical';
  if (typeof run.trainLossDelta === 'number') return `the same texts and calls, stored losses within ${f(run.trainLossDelta, 4)} nats (float rounding of other batch shapes)`;
  return '**differs**';
}

/** Loss sequences a run scored: one L_a per position, one L_c per call, one L_b per call that got one. */
export const sequences = (s: SideRun) => (s.positionsScored ?? 0) + s.scored + (s.callOnlyScored ?? 0);

export function oldVsNewLines(r: OldVsNew): string[] {
  const inputs = r.inputs ?? ['corpus/sample.jsonl'];
  const all = inputs.join() === 'corpus/sample.jsonl' ? 'all 30 documents' : 'all the documents';
  const lines = [
    `Measured by \`${r.command}\` (${r.date.slice(0, 10)}): \`npm start\`'s annotate (the CLI's defaults, 2 worker processes) of ` +
      `${r.docs === null ? all : `the first ${r.docs} documents`} of ${inputs.join(' and ')} on ${r.model} ` +
      `(onnx/model.onnx ${f(r.modelFileMiB, 0)} MiB, fp32), today's pipeline against ${r.oldCommit}, back to back; ${r.machine}. ` +
      "The new pipeline's probes are computed (an empty verdict cache).",
    '',
  ];
  r.runs.forEach((run, i) => {
    const { old: o, new: n } = run;
    const perScored = (s: SideRun) => s.cpuSeconds / Math.max(1, s.scored);
    lines.push(
      `Round ${i + 1} (${run.order.join(' then ')}): kept calls ${run.keptIdentical ? 'identical' : '**differ**'} (${o.keptCalls} and ${n.keptCalls}); train.jsonl ${trainComparison(run)}.`,
      '',
      `| | old (${o.root}) | new (${n.root}) | old / new |`,
      '|---|--:|--:|--:|',
      `| wall s | ${f(o.wallSeconds)} | ${f(n.wallSeconds)} | ${ratio(o.wallSeconds, n.wallSeconds)} |`,
      `| CPU s (the process tree) | ${f(o.cpuSeconds)} | ${f(n.cpuSeconds)} | ${ratio(o.cpuSeconds, n.cpuSeconds)} |`,
      `| calls scored | ${o.scored} | ${n.scored} | |`,
      ...(o.callOnlyScored === undefined || n.callOnlyScored === undefined ? [] : [
        `| calls with an L_b | ${o.callOnlyScored} | ${n.callOnlyScored} | |`,
        `| sequences scored (L_a per position, L_b, L_c) | ${sequences(o)} | ${sequences(n)} | ${ratio(sequences(o), sequences(n))} |`,
      ]),
      `| CPU s per scored call | ${f(perScored(o), 3)} | ${f(perScored(n), 3)} | ${ratio(perScored(o), perScored(n))} |`,
      `| peak RSS, largest process (MiB) | ${f(o.peakRssMiB, 0)} | ${f(n.peakRssMiB, 0)} | ${ratio(o.peakRssMiB, n.peakRssMiB)} |`,
      `| peak RSS / fp32 file | ${f(o.peakRssMiB / r.modelFileMiB, 2)} | ${f(n.peakRssMiB / r.modelFileMiB, 2)} | |`,
      '',
      '| stage | CPU s old | CPU s new | old / new | wall s old | wall s new | peak RSS MiB old | peak RSS MiB new | what |',
      '|---|--:|--:|--:|--:|--:|--:|--:|---|',
      ...STAGES.map((stage) => {
        const [a, b] = [stageOf(o, stage), stageOf(n, stage)];
        return `| ${stage} | ${f(a.cpuSeconds)} | ${f(b.cpuSeconds)} | ${ratio(a.cpuSeconds, b.cpuSeconds)} | ${f(a.wallSeconds)} | ${f(b.wallSeconds)} | ${f(a.peakRssMiB, 0)} | ${f(b.peakRssMiB, 0)} | ${STAGE_NOTES[stage]} |`;
      }),
      '',
    );
  });
  lines.push(
    'Stages: CPU summed over the parent and its workers (ONNX Runtime\'s threads included; stages active at once share it evenly), ' +
      'wall the longest any process had the stage active, peak RSS the largest VmRSS sampled every 50 ms while it was (pipeline/bench/stage-profile.mjs). ' +
      'The process-tree CPU also counts the apertium processes the translation tool starts.',
  );
  return lines;
}
