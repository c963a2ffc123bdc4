/**
 * How a result file becomes a README block. A Markdown source is included as it is (its leading `# title` line
 * dropped: the README has its own heading); a JSON source needs a view, one function per view below.
 */
import type { RunStats } from '../core/stats.ts';
import { runFilesLines, runSummary } from '../node/run/run-summary.ts';
import { type LmContext, lmContextNotice } from '../core/sampling/lm-context.ts';
import { DEFAULT_SAMPLING_GATE, probeNotices, type SamplingCounts } from '../core/sampling/sampling-gate.ts';
import type { Block } from './blocks.ts';

/** What `npm run docs:start` records of one `npm start` (pipeline/docs/results/start.json). */
export interface StartRecord {
  command: string;
  /** ISO date-time the run started. */
  measured: string;
  /** Wall time of the whole command, process start and model load included. */
  seconds: number;
  /** 1-minute load average just before the run, and the machine's cores. */
  loadAverage: number;
  cores: number;
  /** config.json's samplingProbe: LM samples under each tool's prompt and how many parsed. */
  samplingProbe: Record<string, { samples: number; parsed: number }>;
  /** config.json's lmContext and bareProbe (the bare-text probe that chose it), when the run made one. */
  lmContext?: LmContext;
  bareProbe?: Record<string, SamplingCounts>;
  /** What annotate printed as its own run time (from its summary line). */
  annotateSeconds: number;
  stats: RunStats;
  /** One kept call per tool (the most useful), with the text around it as inlined in train.jsonl. */
  kept: { tool: string; call: string; before: string; after: string; losses: { noCall: number; callOnly: number; withResult: number }; usefulness: number }[];
}

const f2 = (x: number) => x.toFixed(2);
/** `npm start`'s --out (package.json "start"), named in the last lines it prints. */
const START_OUT = 'out/start';

const views: Record<string, (source: string) => string> = {
  /** The lines `npm start` prints, in a code block. */
  summary(source) {
    const r: StartRecord = JSON.parse(source);
    // The lines the CLI printed before the run, made by the same functions.
    const probe = [
      ...(r.lmContext && r.bareProbe ? [lmContextNotice(r.lmContext, r.bareProbe)] : []),
      ...probeNotices(r.samplingProbe, DEFAULT_SAMPLING_GATE),
    ];
    return [
      `What \`${r.command}\` printed (${r.measured.slice(0, 10)}, ${f1(r.seconds)} s for the whole command on a ${r.cores}-core machine at load`,
      `average ${f1(r.loadAverage)}; recorded by \`npm run docs:start\`):`,
      '',
      '```',
      ...probe,
      '',
      ...runSummary(r.stats, r.annotateSeconds),
      ...runFilesLines(START_OUT, r.stats),
      '```',
    ].join('\n');
  },
  /** The kept calls, one per tool, as inlined in train.jsonl, with their losses. */
  kept(source) {
    const r: StartRecord = JSON.parse(source);
    // Bold needs no space inside its markers: " [Tool(…) -> r]" is written " **[Tool(…) -> r]**".
    const bold = (s: string) => s.replace(/^(\s*)(.*?)(\s*)$/s, (_, a, b, c) => `${a}**${b}**${c}`);
    const rows = r.kept.map((k) => `| ${k.tool} | …${esc(k.before)}${bold(esc(k.call))}${esc(k.after)}… | ${f2(k.losses.noCall)} | ${f2(k.losses.callOnly)} | ${f2(k.losses.withResult)} | ${f2(k.usefulness)} |`);
    return ['| tool | kept call in `out/start/train.jsonl` | L_a | L_b | L_c | usefulness |', '|---|---|--:|--:|--:|--:|', ...rows].join('\n');
  },  /** The web app's first visit (web/e2e/results/first-visit.json, recorded by `npm run docs:web`), in two sentences. */
  firstVisit(source) {
    const r: FirstVisitRecord = JSON.parse(source);
    return [
      `Measured ${r.measured.slice(0, 10)} by \`${r.command.split(' (')[0]}\` on a ${r.cores}-core machine at load average ${f1(r.loadAverage)}, ${r.browser}, ` +
        `${r.backend.toUpperCase()}: on a fresh clone's first visit (\`npm run web\`'s dev server, its dependency cache empty) the page loaded ${r.reloads === 0 ? 'once, with no reload' : `and reloaded ${r.reloads}×`}; ` +
        `the model was ready after **${f1(r.modelReadySeconds)} s** and the explorer's first result showed after **${f1(r.firstResultSeconds)} s**` +
        (r.firstVisitBytes === undefined ? '.' : `, with **${(r.firstVisitBytes / 1e6).toFixed(2)} MB** sent by the server until then (its modules unminified, compressed on the fly).`),
      `That result — the default text with every tool, k 5, m 2 — is ${r.candidates} candidate calls over ${r.tokens} tokens, scored in ${f1(r.scoreSeconds)} s: ` +
        `${r.scored} calls reached scoring and ${r.keptAtTauF05} ${r.keptAtTauF05 === 1 ? 'is' : 'are'} kept at τ_f 0.5.`,
    ].join('\n');
  },
  /**
   * The production build's first visit (web/e2e/results/first-visit-build.json, recorded by `npm run docs:web`):
   * bytes sent until the explorer's first result, and the time to it.
   */
  firstVisitBuild(source) {
    const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
    const r: FirstVisitBuildRecord = JSON.parse(source);
    return `Measured ${r.measured.slice(0, 10)} by \`${r.command.split(' (')[0]}\` (\`${r.command.split(' (')[1]?.replace(/\)$/, '') ?? ''}\`) on a ${r.cores}-core machine at load ` +
      `average ${f1(r.loadAverage)}, ${r.browser}, ${r.backend.toUpperCase()}, ${r.server}: a first visit to the default page downloads ` +
      `**${(r.firstVisitBytes / 1e6).toFixed(2)} MB** (headers and bodies as sent, counted on the server's sockets) until the explorer's first ` +
      `result, which shows after **${f1(r.firstResultSeconds)} s**: ${r.funnel}.` +
      (r.largest?.length ? `\nThe largest files it fetched, compressed (raw): ${r.largest.map((f) => `\`${f.file}\` ${mb(f.compressed)} (${mb(f.raw)})`).join(', ')}` +
        (r.webgpuRuntime ? `; the WebGPU (JSEP) runtime, fetched only when WebGPU is chosen, would be \`${r.webgpuRuntime.file}\` ${mb(r.webgpuRuntime.compressed)} (${mb(r.webgpuRuntime.raw)}).` : '.') : '');
  },
  /** A trained model's held-out probes and its run (`<model>/train-record.json`, written by `npm run train:model`). */
  trainRecord(source) {
    const r: TrainRecordProbes = JSON.parse(source);
    const signed = (x: number) => `${x >= 0 ? '+' : '−'}${f2(Math.abs(x))}`;
    const minus = (x: number) => f2(x).replace('-', '−');
    return [
      '| probe (held-out) | value | target |',
      '|---|---|---|',
      `| validation loss | ${f2(r.valLoss)} nats/token | |`,
      `| copy: log-prob of a random 5-digit number, 2nd occurrence − 1st | **${signed(r.copy.gain)}** nats/token (${minus(r.copy.first)} → ${minus(r.copy.second)}) | ≥ 3 |`,
      `| tool result as prefix: drop of the paper's weighted loss when the result follows (median) | **${f2(r.tool.medianDrop)}** | ≥ 1.0 |`,
      `| … when an unrelated result is given | ${minus(r.tool.medianUnrelatedDrop)} | ≤ 0.1 |`,
      '',
      `${r.step.toLocaleString('en-US')} steps, ${(r.tokensSeen / 1e6).toFixed(2)}M tokens, ${Math.round(r.trainSeconds / 60)} minutes of training ` +
        `(${Math.round(r.tokensSeen / r.trainSeconds).toLocaleString('en-US')} tokens/s on average); ${(r.params / 1e6).toFixed(2)}M parameters.`,
    ].join('\n');
  },
  /** Our scorer against Transformers.js on each dtype replica (pipeline/onnx-export/results/replicas.json, `npm run docs:replicas`). */
  replicas(source) {
    const r: ReplicasRecord = JSON.parse(source);
    const tokens = [...new Set(r.dtypes.map((d) => d.tokens))].join(', ');
    return [
      `Measured ${r.measured.slice(0, 10)} by \`${r.command}\` (pipeline/onnx-export/replicas.test.ts): the largest |our log p − Transformers.js ${r.transformersJs} log p| ` +
        `over the ${tokens} scored tokens of the test's text, one request, against the test's tolerance:`,
      '',
      '| dtype | file | largest difference, nats | tolerance, nats |',
      '|---|---|--:|--:|',
      ...r.dtypes.map((d) => `| ${d.dtype} | \`${d.file}\` | ${d.largest.toExponential(1)} | ${d.tolerance.toExponential(0)} |`),
    ].join('\n');
  },
  /** How long `npm test` and `npm run test:fast` took (pipeline/docs/results/tests.json, `npm run docs:tests`). */
  testDurations(source) {
    const r: TestDurations = JSON.parse(source);
    const one = (t: TestRunRecord) =>
      `\`${t.command}\` took **${t.wallSeconds < 90 ? `${Math.round(t.wallSeconds)} s` : `${Math.round(t.wallSeconds / 60)} min`}** (${Math.round(t.wallSeconds)} s wall, ${Math.round(t.cpuSeconds)} CPU s; ${t.files} files, ` +
      `${t.tests.passed} tests passed, ${t.tests.failed} failed, ${t.tests.skipped} skipped) on ${t.cores} cores at load average ${f1(t.loadAverage.before)} → ${f1(t.loadAverage.after)}, ${t.measured.slice(0, 10)}`;
    const runs = (['full', 'fast'] as const).flatMap((suite) => (r[suite] ? [one(r[suite])] : [`\`${suite === 'full' ? 'npm test' : 'npm run test:fast'}\`: not recorded yet`]));
    return `Measured by \`npm run docs:tests -- --suite full|fast\`: ${runs.join('; ')}. Wall time grows with the machine's load; CPU time much less.`;
  },
};

/** The fields of a train-record.json the `trainRecord` view reads (pipeline/train/finish.ts writes the file). */
export interface TrainRecordProbes {
  step: number;
  tokensSeen: number;
  trainSeconds: number;
  params: number;
  /** Held-out loss, nats/token. */
  valLoss: number;
  /** Mean log-prob of a repeated 5-digit number's tokens at its first and second occurrence, nats/token. */
  copy: { first: number; second: number; gain: number };
  /** Median drop of the weighted loss when the right / an unrelated result precedes the text, nats. */
  tool: { medianDrop: number; medianUnrelatedDrop: number };
}

/** What pipeline/onnx-export/replicas.test.ts records with RECORD_REPLICAS=1. */
export interface ReplicasRecord {
  measured: string;
  command: string;
  text: string;
  transformersJs: string;
  /** Per dtype: the largest |Δ log p| over `tokens` scored tokens, nats, and the test's tolerance. */
  dtypes: { dtype: string; file: string; largest: number; tokens: number; tolerance: number }[];
}

/** One recorded run of a test suite (`npm run docs:tests`, pipeline/docs/record-tests.ts). */
export interface TestRunRecord {
  command: string;
  /** ISO date-time the run started. */
  measured: string;
  wallSeconds: number;
  cpuSeconds: number;
  /** 1-minute load average before and after the run, and the machine's cores. */
  loadAverage: { before: number; after: number };
  cores: number;
  files: number;
  tests: { passed: number; failed: number; skipped: number };
}
export type TestDurations = Partial<Record<'fast' | 'full', TestRunRecord>>;

/** Where, when and how a web measurement was made (the first-visit records; web/e2e/browser.ts measuredHere). */
export interface BrowserMeasurement {
  measured: string;
  command: string;
  server: string;
  cores: number;
  loadAverage: number;
  browser: string;
  backend: string;
}

/** What web/e2e/explorer-first.test.ts records (RECORD_WEB=1, `npm run docs:web`). */
export interface FirstVisitBuildRecord extends BrowserMeasurement {
  /** Bytes the preview server wrote to its sockets from navigation to the explorer's first result. */
  firstVisitBytes: number;
  firstResultSeconds: number;
  /** The status line's funnel at that result, e.g. "80 proposed → 50 executed → 50 scored → 2 kept". */
  funnel: string;
  executed: number;
  kept: number;
  /** The biggest files of that visit, and the runtime a WebGPU visit would take instead: bytes, brotli and raw. */
  largest?: { file: string; compressed: number; raw: number }[];
  webgpuRuntime?: { file: string; compressed: number; raw: number };
}

/** What web/e2e/first-visit.test.ts records (RECORD_WEB=1, `npm run docs:web`). */
export interface FirstVisitRecord extends BrowserMeasurement {
  /** Page reloads after the first load (Vite's dependency optimisation used to cause one). */
  reloads: number;
  /** Bytes the dev server wrote to its sockets until the first result (absent in records before issue 49). */
  firstVisitBytes?: number;
  /** From navigation to the model loaded, and to the explorer's first finished scoring, wall seconds. */
  modelReadySeconds: number;
  firstResultSeconds: number;
  candidates: number;
  tokens: number;
  /** The worker's own time for that scoring. */
  scoreSeconds: number;
  /** Candidates with losses, and those kept at τ_f 0.5 with the control on (the page's defaults). */
  scored: number;
  keptAtTauF05: number;
}

const f1 = (x: number) => x.toFixed(1);

/** `<file>.md#table`: the first Markdown table of the file (consecutive lines starting with "|"). */
function firstTable(text: string, source: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  if (start < 0) throw new Error(`${source}#table: the file has no table`);
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}
const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The block's body for the source file's text. */
export function renderBlock(block: Pick<Block, 'source' | 'view'>, sourceText: string): string {
  if (block.view === 'table' && block.source.endsWith('.md')) return firstTable(sourceText, block.source);
  if (block.view) {
    const view = views[block.view];
    if (!view) throw new Error(`${block.source}#${block.view}: no such view (known: table for .md files, ${Object.keys(views).join(', ')})`);
    return view(sourceText);
  }
  if (!block.source.endsWith('.md')) throw new Error(`${block.source}: a non-Markdown source needs a view (#${Object.keys(views).join(', #')})`);
  return sourceText.replace(/^# .*\n+/, '').trim();
}
