/**
 * Inline call placement vs the paper's prefix placement (issue 28 item 9), in one run of this script: the 254
 * hand-labelled passages (pipeline/eval/data-quality/) go once through prefilter → propose → guard → execute with
 * models/toolformer (the model finetuned to write calls) and the CLI's defaults and probes; then the SAME executed
 * candidates are scored, controlled and judged twice, `callPlacement` prefix and inline, in this process, one after
 * the other. Measured per placement: the score stage's forward passes, sequences (an inline position's shared prefix
 * counts as one), tokens forwarded, padded tokens, CPU and wall seconds; and the verdicts — the agreement of the two
 * placements on every scored candidate, and each one's precision / recall against the labels (eval:data's matching).
 *
 *   npx tsx pipeline/bench/inline-placement.ts       → pipeline/bench/results/inline-placement.{json,md}
 *   npx tsx pipeline/bench/inline-placement.ts 20    the first 20 passages only, results to stdout (a try)
 *   npx tsx pipeline/bench/inline-placement.ts --render   the .md again from the committed .json (no run)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { type Candidate, isKept } from '../core/candidates.ts';
import type { AnnotateConfig, CallPlacement } from '../core/config.ts';
import type { CausalLM } from '../core/lm/lm.ts';
import type { OrtCausalLM } from '../core/lm/ort-lm.ts';
import { planConfig, withVerdicts } from '../core/run-plan.ts';
import { inlinedAtEachPosition } from '../core/stages/inline.ts';
import { controlStage, executeStage, guardStage, judgeStage, prefilterStage, proposeStage, scoreStage, type DocWork, type PipelineParts, type Stage } from '../core/stages/stages.ts';
import { loadLabelledSet } from '../eval/data-quality/labels.ts';
import { evaluate, type KeptCall } from '../eval/data-quality/match.ts';
import { loadModel } from '../node/model/load-model.ts';
import { createNodeParts } from '../node/tools/parts.ts';
import { runProbes } from '../node/run/run-probes.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const MODEL = 'models/toolformer';
const PLACEMENTS: readonly CallPlacement[] = ['prefix', 'inline'];

/** What the score stage forwarded: every score() batch (OrtCausalLM.onScoreBatch) and every shared prefix. */
interface Forwarded {
  forwardPasses: number;
  sequences: number;
  tokens: number;
  paddedTokens: number;
  /** Inline only: shared prefixes forwarded (one per position) and their tokens, included in the counts above. */
  prefixes: number;
  prefixTokens: number;
}

const zero = (): Forwarded => ({ forwardPasses: 0, sequences: 0, tokens: 0, paddedTokens: 0, prefixes: 0, prefixTokens: 0 });

/**
 * `lm` with the score stage's forward passes counted into `meter.now` (the control's are not counted): every score()
 * batch (OrtCausalLM.onScoreBatch: rows and tokens past the shared prefix) and every shared prefix the ONNX scorer
 * forwards (prefixForwards; its tokens from the requests' sharedPrefix, once per distinct prefix).
 */
function countingLM(lm: OrtCausalLM, meter: { now: Forwarded | null }): CausalLM {
  lm.onScoreBatch = ({ rows, length, tokens }) => {
    if (!meter.now) return;
    Object.assign(meter.now, { forwardPasses: meter.now.forwardPasses + 1, sequences: meter.now.sequences + rows, tokens: meter.now.tokens + tokens, paddedTokens: meter.now.paddedTokens + rows * length });
  };
  const seen = new Set<string>();
  const counting: CausalLM = Object.create(lm);
  counting.score = async (batch) => {
    const m = meter.now;
    const before = lm.prefixForwards;
    const results = await lm.score(batch);
    if (m) {
      const forwarded = lm.prefixForwards - before;
      let tokens = 0;
      for (const r of batch) {
        const key = r.sharedPrefix ? r.ids.slice(0, r.sharedPrefix).join(',') : '';
        if (key && !seen.has(key)) (seen.add(key), (tokens += r.sharedPrefix!));
      }
      Object.assign(m, { forwardPasses: m.forwardPasses + forwarded, sequences: m.sequences + forwarded, tokens: m.tokens + tokens, paddedTokens: m.paddedTokens + tokens, prefixes: m.prefixes + forwarded, prefixTokens: m.prefixTokens + tokens });
    }
    return results;
  };
  return counting;
}

async function collect(stream: AsyncIterable<DocWork>): Promise<DocWork[]> {
  const out: DocWork[] = [];
  for await (const w of stream) out.push(w);
  return out;
}

async function* each<T>(items: readonly T[]): AsyncIterable<T> {
  yield* items;
}

/** Runs `stage` over `works` to the end, with the process's CPU and wall seconds it took. */
async function timed(stage: Stage, works: readonly DocWork[]): Promise<{ works: DocWork[]; cpuSeconds: number; wallSeconds: number }> {
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const out = await collect(stage(each(works)));
  const used = process.cpuUsage(cpu);
  return { works: out, cpuSeconds: (used.user + used.system) / 1e6, wallSeconds: (performance.now() - wall) / 1000 };
}

/** Score, control and judge a copy of `executed` with `placement`. */
async function judgeWith(parts: PipelineParts, config: AnnotateConfig, executed: readonly DocWork[], placement: CallPlacement, meter: { now: Forwarded | null }) {
  const planned: AnnotateConfig = { ...config, callPlacement: placement };
  const forwarded = zero();
  meter.now = forwarded;
  const scored = await timed(scoreStage(parts, planned), structuredClone(executed as DocWork[]));
  meter.now = null;
  const controlled = await timed(controlStage(parts, planned), scored.works);
  const judged = await collect(judgeStage(planned)(each(controlled.works)));
  const candidates = judged.flatMap((w) => w.candidates);
  const lossCandidates = candidates.filter((c) => c.losses).length;
  return {
    judged,
    candidates,
    measured: {
      placement,
      scoredCandidates: lossCandidates,
      ...forwarded,
      scoreCpuSeconds: +scored.cpuSeconds.toFixed(2),
      scoreWallSeconds: +scored.wallSeconds.toFixed(2),
      cpuMsPerCandidate: +((scored.cpuSeconds * 1000) / Math.max(1, lossCandidates)).toFixed(2),
      controlCpuSeconds: +controlled.cpuSeconds.toFixed(2),
      kept: candidates.filter(isKept).length,
    },
  };
}

/** The kept calls written into x* (one per position, inline.ts), as eval:data matches them. */
function keptCalls(judged: readonly DocWork[]): KeptCall[] {
  return judged.flatMap((w) => inlinedAtEachPosition(w.candidates.filter(isKept)).map((c) => ({ docId: w.doc.id, tool: c.tool, input: c.input, result: c.result!, at: c.at })));
}

/** 2 × 2 agreement of the two verdicts (kept or not) over the candidates both scored, and Cohen's κ. */
function agreement(a: readonly Candidate[], b: readonly Candidate[], tool?: string) {
  let both = 0, onlyA = 0, onlyB = 0, neither = 0;
  a.forEach((c, i) => {
    if (!c.losses || !b[i].losses || (tool && c.tool !== tool)) return;
    const [x, y] = [isKept(c), isKept(b[i])];
    if (x && y) both++;
    else if (x) onlyA++;
    else if (y) onlyB++;
    else neither++;
  });
  const n = both + onlyA + onlyB + neither;
  const observed = n ? (both + neither) / n : 1;
  const pa = n ? (both + onlyA) / n : 0;
  const pb = n ? (both + onlyB) / n : 0;
  const chance = pa * pb + (1 - pa) * (1 - pb);
  const kappa = chance < 1 ? (observed - chance) / (1 - chance) : 1;
  return { candidates: n, keptByBoth: both, keptByPrefixOnly: onlyA, keptByInlineOnly: onlyB, keptByNeither: neither, agreement: +observed.toFixed(4), kappa: +kappa.toFixed(4) };
}

async function main(): Promise<void> {
  const limit = process.argv[2] === undefined ? undefined : Number(process.argv[2]);
  const passages = loadLabelledSet().slice(0, limit);
  const lm = await loadModel(join(ROOT, MODEL));
  const meter: { now: Forwarded | null } = { now: null };
  const flags = { seed: 0, batchSize: 16, concurrency: 4, lmProposals: true, lmContext: 'auto' as const };
  const base = planConfig(flags);
  const { parts } = await createNodeParts(countingLM(lm, meter), base);
  const config = withVerdicts(base, await runProbes(parts, base, flags.lmContext, (line) => console.error(line)));
  const docs = passages.map((p) => ({ id: p.id, text: p.text, date: p.date, source: p.source }));
  const after: Stage[] = [proposeStage(parts, config), guardStage(parts), executeStage(parts)];
  const executed = await collect(after.reduce((s, stage) => stage(s), prefilterStage(parts, config)(each(docs))));
  // Warm-up (not measured): both scorers once over the first 10 passages, so neither pays for the other's JIT.
  for (const placement of PLACEMENTS) await judgeWith(parts, config, executed.slice(0, 10), placement, { now: null });
  const runs: Awaited<ReturnType<typeof judgeWith>>[] = [];
  for (const placement of PLACEMENTS) runs.push(await judgeWith(parts, config, executed, placement, meter));
  const [prefix, inline] = runs;
  const labelled = (run: (typeof runs)[number]) => {
    const { report } = evaluate(passages, keptCalls(run.judged));
    const all = (split: 'dev' | 'test') => report[split].all;
    const sum = (k: 'labels' | 'kept' | 'keptCorrect' | 'labelsFound') => all('dev')[k] + all('test')[k];
    return { labels: sum('labels'), keptInX: sum('kept'), keptCorrect: sum('keptCorrect'), labelsFound: sum('labelsFound'), precision: +(sum('keptCorrect') / Math.max(1, sum('kept'))).toFixed(4), recall: +(sum('labelsFound') / sum('labels')).toFixed(4) };
  };
  const tools = [...new Set(prefix.candidates.filter((c) => c.losses).map((c) => c.tool))];
  const ratio = (k: 'sequences' | 'tokens' | 'paddedTokens' | 'scoreCpuSeconds' | 'cpuMsPerCandidate') => +(prefix.measured[k] / inline.measured[k]).toFixed(2);
  const result = {
    what: `${passages.length} hand-labelled passages (pipeline/eval/data-quality), ${MODEL}, the CLI's defaults and probes (lmContext ${config.lmContext}); the same executed candidates scored, controlled and judged with the call as a prefix (the paper's) and inline`,
    machine: `${process.platform} ${process.arch}, 1 process, load ${loadavg()[0].toFixed(2)} at the end (a shared 2-core machine: CPU seconds are the measure; wall varies with load)`,
    measured: new Date().toISOString(),
    prefix: { ...prefix.measured, labelled: labelled(prefix) },
    inline: { ...inline.measured, labelled: labelled(inline) },
    speedUp: { sequences: ratio('sequences'), tokens: ratio('tokens'), paddedTokens: ratio('paddedTokens'), scoreCpuSeconds: ratio('scoreCpuSeconds'), cpuPerCandidate: ratio('cpuMsPerCandidate') },
    verdicts: { all: agreement(prefix.candidates, inline.candidates), ...Object.fromEntries(tools.map((t) => [t, agreement(prefix.candidates, inline.candidates, t)])) },
  };
  if (limit === undefined) writeFileSync(`${RESULTS}.json`, JSON.stringify(result, null, 2) + '\n');
  if (limit === undefined) writeFileSync(`${RESULTS}.md`, markdown(result));
  console.log(JSON.stringify(result, null, 2));
  await lm.release();
}

type Result = {
  what: string;
  machine: string;
  prefix: Record<string, unknown> & { labelled: Record<string, number> };
  inline: Record<string, unknown> & { labelled: Record<string, number> };
  speedUp: Record<string, number>;
  verdicts: Record<string, ReturnType<typeof agreement>>;
};

/** The README table, from the result (npm run docs copies it into pipeline/bench/README.md). */
function markdown(r: Result): string {
  const row = (label: string, key: string, speed?: string) => `| ${label} | ${r.prefix[key]} | ${r.inline[key]} | ${speed ? `${r.speedUp[speed]}×` : ''} |`;
  const lab = (label: string, key: string) => `| ${label} | ${r.prefix.labelled[key]} | ${r.inline.labelled[key]} | |`;
  const verdict = (tool: string, a: ReturnType<typeof agreement>) =>
    `| ${tool} | ${a.candidates} | ${a.keptByBoth} | ${a.keptByPrefixOnly} | ${a.keptByInlineOnly} | ${a.keptByNeither} | ${a.agreement} | ${a.kappa} |`;
  return [
    `${r.what}. ${r.machine}.`,
    '',
    '| score stage | prefix | inline | prefix / inline |',
    '|---|--:|--:|--:|',
    row('candidates scored', 'scoredCandidates'),
    row('forward passes', 'forwardPasses'),
    row('shared prefixes [bos] x_{1:i−2} forwarded (inline: one per position)', 'prefixes'),
    row('tokens of those prefixes (counted in the tokens forwarded)', 'prefixTokens'),
    row('sequences (inline: + one shared prefix per position)', 'sequences', 'sequences'),
    row('tokens forwarded', 'tokens', 'tokens'),
    row('padded tokens', 'paddedTokens', 'paddedTokens'),
    row('CPU s', 'scoreCpuSeconds', 'scoreCpuSeconds'),
    row('CPU ms per candidate', 'cpuMsPerCandidate', 'cpuPerCandidate'),
    row('wall s', 'scoreWallSeconds'),
    row('kept calls', 'kept'),
    lab('kept calls in x* matching a label', 'keptCorrect'),
    lab('precision against the labels', 'precision'),
    lab('recall against the labels', 'recall'),
    '',
    'Verdicts (kept or not) of the two placements on the same candidates:',
    '',
    '| tool | candidates | kept by both | prefix only | inline only | neither | agreement | Cohen κ |',
    '|---|--:|--:|--:|--:|--:|--:|--:|',
    ...Object.entries(r.verdicts).map(([tool, a]) => verdict(tool, a)),
    '',
  ].join('\n');
}

const RESULTS = join(ROOT, 'pipeline/bench/results/inline-placement');
if (process.argv[2] === '--render') writeFileSync(`${RESULTS}.md`, markdown(JSON.parse(readFileSync(`${RESULTS}.json`, 'utf8'))));
else await main();
