/**
 * The web explorer's default run in Chromium (WASM), before and after two-pass scoring, in one run of this script:
 * the page's own `analyze` request (web/src/ui/explorer/worker-calls.ts analyzeParams: the default text, every tool,
 * k 5, m 2, the registry's worked example as own call) sent to the page's model worker with τ_min −5 (the slider's
 * floor: every L_b a slider position can need, as the explorer scored before) and with τ_min = the default τ_f 0.5
 * (L_b only where L_a − L_c ≥ 0.5; a lower τ_f scores the rest on demand). Rounds alternate the two, after a warm-up.
 * Per run: wall time in the page, CPU seconds of every Chromium process (chromium-proc.ts), and the time between the
 * worker's progress messages per stage (p_i, LM samples, tool calls, scoring, control). Checks that every candidate's
 * verdict at τ_f 0.5 is the same, control on and off.
 *
 *   npx tsx pipeline/bench/explorer.ts [--rounds 3]      → pipeline/bench/results/explorer.json and explorer.md
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { hasCallOnly } from '../core/candidates.ts';
import { median } from '../core/median.ts';
import { TOOL_SPECS } from '../core/tools/registry.ts';
import { scriptFlag } from '../io/script-flag.ts';
import { launch, openPage } from '../../web/e2e/browser.ts';
import { buildApp, repoRoot, serveApp } from '../../web/e2e/serve.ts';
import { type Analysis, TAU_F_SLIDER_MIN } from '../../web/src/analysis-types.ts';
import { rejudge } from '../../web/src/rejudge.ts';
import { applyTools, initialState } from '../../web/src/ui/explorer/state.ts';
import { analyzeParams } from '../../web/src/ui/explorer/worker-calls.ts';
import { descendantsCpuSeconds } from './chromium-proc.ts';

const ROUNDS = Number(scriptFlag('rounds', '3'));
const RESULTS = join(repoRoot, 'pipeline/bench/results/explorer.json');
/** The default page's settings, as the explorer has them once the worker's tools are known. */
const settings = initialState(new URLSearchParams());
applyTools(settings, TOOL_SPECS.map((s) => ({ name: s.name, description: s.description, examples: (s.examples ?? []).map(({ text, at, input }) => ({ text, at, input })) })));
const DEFAULT_TAU_F = settings.tauF;
/** Before: every L_b down to the slider's floor, each LM sample decoded to its end; after: the explorer's settings. */
const MODES = { before: { tauMin: TAU_F_SLIDER_MIN, stopUnparsable: false }, after: { tauMin: DEFAULT_TAU_F, stopUnparsable: true } } as const;
type Mode = keyof typeof MODES;

type Hook = { toolformer: { client: { request(t: string, b: unknown, progress?: (stage: string) => void): Promise<unknown> }; loaded: { choice: { threads: number } } } };

/** One analyze in the page: the analysis, wall seconds, and seconds per stage (from the worker's progress messages). */
async function analyzeOnce(page: import('playwright-core').Page, mode: (typeof MODES)[Mode]) {
  return page.evaluate(async (params) => {
    const t0 = performance.now();
    const marks: [string, number][] = [];
    const analysis = await (globalThis as unknown as Hook).toolformer.client.request('analyze', { params }, (stage: string) => {
      const key = stage.startsWith('p_i') ? 'p_i' : stage.startsWith('LM samples') ? 'LM samples' : stage === 'tool calls run' ? 'tool calls' : stage === 'calls scored' ? 'scoring' : stage.startsWith('calls checked') ? 'control' : stage;
      if (marks.at(-1)?.[0] !== key) marks.push([key, performance.now() - t0]);
    });
    const wall = performance.now() - t0;
    const stages: Record<string, number> = {};
    marks.forEach(([key, at], i) => (stages[key] = (stages[key] ?? 0) + ((marks[i + 1]?.[1] ?? wall) - at) / 1000));
    return { analysis: analysis as unknown, wallSeconds: wall / 1000, stages, beforeFirstStage: (marks[0]?.[1] ?? wall) / 1000 };
  }, { ...analyzeParams(settings, settings.text), ...mode }) as Promise<{ analysis: Analysis; wallSeconds: number; stages: Record<string, number>; beforeFirstStage: number }>;
}

/** explorer.md: the sentence and table pipeline/bench/README.md includes (npm run docs). */
function markdown(r: typeof result): string {
  const m = r.median;
  const keys = [...new Set([...Object.keys(m.before.stages), ...Object.keys(m.after.stages)])];
  const f = (x: number) => x.toFixed(2);
  return [
    `${r.date.slice(0, 10)}, \`${r.command}\`, ${r.browser}, WASM with ${r.wasmThreads} threads, ${r.machine}; medians of ${ROUNDS} alternating rounds. ` +
      `The default text's ${r.candidates} candidate calls, ${r.reachedScoring} reaching scoring: L_b scored for ${r.callOnlyScored.before} before and ${r.callOnlyScored.after} after; ` +
      `the same ${r.sameCandidates ? '' : '(**not**) '}candidates; every scored call's verdict at τ_f ${DEFAULT_TAU_F} (control on and off) ${r.verdictsIdenticalAtDefaultTauF ? 'identical' : '**differs**'} (${r.keptAtDefaultTauF} kept); ${r.samplesWithAnotherRejectionReason} unparsable samples cut early, rejected as unclosed_call instead of parse_error, largest L_b difference ${r.largestCallOnlyDifference.toExponential(1)} nats.`,
    '',
    `| | τ_min | samples stop when unparsable | wall s | Chromium CPU s | ${keys.join(' s | ')} s |`,
    `|---|---:|---|---:|---:|${keys.map(() => '---:').join('|')}|`,
    ...(['before', 'after'] as const).map((mode) => `| ${mode} | ${MODES[mode].tauMin} | ${MODES[mode].stopUnparsable ? 'yes' : 'no'} | ${f(m[mode].wallSeconds)} | ${f(m[mode].cpuSeconds)} | ${keys.map((k) => f(m[mode].stages[k] ?? 0)).join(' | ')} |`),
    `| **speed-up** | | | **${f(r.speedup.wall)}×** | **${f(r.speedup.cpu)}×** | target ≥ ${r.speedup.target}× ${r.speedup.wall >= r.speedup.target ? '✔' : '✘'} |`,
  ].join('\n');
}

/** Each candidate's call and verdict at the default τ_f, control on and off (a sample rejected before execution: its kind only). */
const verdicts = (a: Analysis) => [a.controlMargins, undefined].flatMap((controlMargins) =>
  rejudge(a, { tauS: 0, tauF: DEFAULT_TAU_F, controlMargins }).map((d) => (d.candidate.losses ? `${d.candidate.tool}(${d.candidate.input})@${d.candidate.at}: ${d.outcome.kind}` : d.kept ? 'kept' : 'rejected')));
/** LM samples whose rejection reason differs (a sample cut once unparsable is unclosed_call; decoded on, parse_error). */
const reasonChanges = (a: Analysis, b: Analysis) => a.candidates.filter((c, i) => c.outcome.kind !== b.candidates[i].outcome.kind).length;

const outDir = join(repoRoot, 'out/bench/explorer-dist');
await buildApp({ outDir });
const served = await serveApp({ outDir });
const browser = await launch({ webgpu: false });
const runs: { mode: Mode; tauMin: number; stopUnparsable: boolean; wallSeconds: number; cpuSeconds: number; stages: Record<string, number> }[] = [];
const analyses: Partial<Record<Mode, Analysis>> = {};
let threads = 0;
try {
  // No tools: the page's own first run scores nothing, so the bench's requests are the only work.
  const { page, errors } = await openPage(browser, `${served.url}?backend=wasm&tools=&own=`);
  await page.waitForFunction(() => document.querySelector('[data-testid="ex-status"]')?.getAttribute('data-done'), null, { timeout: 600_000 });
  threads = await page.evaluate(() => (globalThis as unknown as Hook).toolformer.loaded.choice.threads);
  await analyzeOnce(page, MODES.after); // warm-up: kernels compiled, the KB and tools loaded
  for (let round = 0; round < ROUNDS; round++) {
    const order: Mode[] = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
    for (const mode of order) {
      const cpu0 = descendantsCpuSeconds();
      const r = await analyzeOnce(page, MODES[mode]);
      const cpuSeconds = descendantsCpuSeconds() - cpu0;
      runs.push({ mode, ...MODES[mode], wallSeconds: +r.wallSeconds.toFixed(3), cpuSeconds: +cpuSeconds.toFixed(2), stages: Object.fromEntries(Object.entries(r.stages).map(([k, v]) => [k, +v.toFixed(3)])) });
      analyses[mode] ??= r.analysis;
      console.error(`round ${round + 1} ${mode} (${JSON.stringify(MODES[mode])}): ${r.wallSeconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(1)} CPU s`, r.stages);
    }
  }
  if (errors.length) throw new Error(`console errors: ${errors.join('; ')}`);
} finally {
  await browser.close();
  await served.close();
}

const before = analyses.before!;
const after = analyses.after!;
const of = (mode: Mode, key: 'wallSeconds' | 'cpuSeconds') => median(runs.filter((r) => r.mode === mode).map((r) => r[key]));
const stageMedians = (mode: Mode) => {
  const keys = [...new Set(runs.flatMap((r) => Object.keys(r.stages)))];
  return Object.fromEntries(keys.map((k) => [k, median(runs.filter((r) => r.mode === mode).map((r) => r.stages[k] ?? 0))]));
};
const callOnlyDiffs = after.candidates.flatMap((c, i) => (c.losses && hasCallOnly(c.losses) ? [Math.abs(c.losses.callOnly - before.candidates[i].losses!.callOnly!)] : []));
const result = {
  what: "the web explorer's default run (its text, every tool, k 5, m 2, own call = the worked example) in Chromium on WASM, " +
    `before: τ_min ${MODES.before.tauMin} (every L_b a slider position can need) and each LM sample decoded to its end; after: τ_min ${MODES.after.tauMin} (the default τ_f) and samples stopped once unparsable; alternating rounds after a warm-up`,
  command: 'npx tsx pipeline/bench/explorer.ts',
  date: new Date().toISOString(),
  machine: `${cpus().length} cores, load ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} at the end (shared: CPU seconds are the measure load moves least)`,
  browser: `Chromium ${browser.version()}`,
  wasmThreads: threads,
  candidates: after.candidates.length,
  reachedScoring: after.candidates.filter((c) => c.losses).length,
  callOnlyScored: { before: before.candidates.filter((c) => c.losses && hasCallOnly(c.losses)).length, after: after.candidates.filter((c) => c.losses && hasCallOnly(c.losses)).length },
  verdictsIdenticalAtDefaultTauF: JSON.stringify(verdicts(before)) === JSON.stringify(verdicts(after)),
  sameCandidates: before.candidates.length === after.candidates.length && before.candidates.every((c, i) => c.tool === after.candidates[i].tool && c.input === after.candidates[i].input && c.at === after.candidates[i].at),
  samplesWithAnotherRejectionReason: reasonChanges(before, after),
  keptAtDefaultTauF: rejudge(after, { tauS: 0, tauF: DEFAULT_TAU_F, controlMargins: after.controlMargins }).filter((d) => d.kept).length,
  largestCallOnlyDifference: Math.max(0, ...callOnlyDiffs),
  median: {
    before: { wallSeconds: of('before', 'wallSeconds'), cpuSeconds: of('before', 'cpuSeconds'), stages: stageMedians('before') },
    after: { wallSeconds: of('after', 'wallSeconds'), cpuSeconds: of('after', 'cpuSeconds'), stages: stageMedians('after') },
  },
  speedup: {
    wall: +(of('before', 'wallSeconds') / of('after', 'wallSeconds')).toFixed(2),
    cpu: +(of('before', 'cpuSeconds') / of('after', 'cpuSeconds')).toFixed(2),
    target: 1.8,
  },
  runs,
};
mkdirSync(join(repoRoot, 'pipeline/bench/results'), { recursive: true });
writeFileSync(RESULTS, JSON.stringify(result, null, 2) + '\n');
writeFileSync(RESULTS.replace(/\.json$/, '.md'), markdown(result) + '\n');
console.log(JSON.stringify({ ...result, runs: undefined }, null, 2));
