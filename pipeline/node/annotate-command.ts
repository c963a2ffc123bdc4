import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { type AnnotateConfig, type InputLimits, type ToolThresholds, defaultConfig, validateConfig } from '../core/config.ts';
import { TOOL_NAMES, TOOL_SPECS } from '../core/tools/registry.ts';
import type { RunStats } from '../core/stats.ts';
import type { PipelineParts } from '../core/stages/work.ts';
import { resolveModel, type Dtype } from './hf-cache.ts';
import { isCorpusFormat } from './corpus-formats/index.ts';
import { exportFormatList } from './export/formats.ts';
import { digestInputs } from './input-digest.ts';
import { loadModel } from './load-model.ts';
import type { McpTools } from './mcp/run-tools.ts';
import { skipLine, summarizeSkips } from './corpus-files.ts';
import { listInputs } from './read-corpus.ts';
import { packageVersions } from './package-versions.ts';
import { assertChunksOfRun, resumableCheckpoint } from './resume-checks.ts';
import { RunFiles } from './run-files.ts';
import { runSummary, searchBudgetLine } from './run-summary.ts';
import { DEFAULT_CHUNK_ITEMS, keptCalls, parseShard } from './scale/plan.ts';
import { digestOf, runIdentity } from './scale/run-digest.ts';

export interface AnnotateFlags {
  /** A model directory or an `org/name` id in the local Hugging Face cache. */
  model: string;
  /** Which ONNX file of the model (onnx/model.onnx, model_fp16.onnx, …). @default "fp32" */
  dtype?: Dtype;
  /** Comma-separated; @default every registered tool */
  tools?: string;
  tauS?: number;
  tauF?: number;
  k?: number;
  m?: number;
  maxDocs?: number;
  /** The search budget per document, tokens; 0: none. @default defaultConfig's maxDocTokens */
  maxDocTokens?: number;
  seed: number;
  batchSize: number;
  concurrency: number;
  /** Milliseconds a tool call may run. @default defaultConfig's toolTimeoutMs */
  toolTimeout?: number;
  lmProposals: boolean;
  /** Keep sampling even where samples never parse (turns the sampling gate off). */
  forceLmSampling?: boolean;
  /** What LM positions and samples condition on; `auto` decides by the bare-text probe. @default "auto" */
  lmContext?: 'auto' | 'prompt' | 'bare';
  /** `--no-programmatic`: false (no heuristic positions, no programmatic proposers). */
  programmatic?: boolean;
  /** Top-k of LM sampling. @default defaultConfig's topK */
  topK?: number;
  /** Counterfactual control margin, nats (absent: the default). */
  controlMargin?: number;
  /** `--no-control`: false. */
  control?: boolean;
  out: string;
  resume?: boolean;
  /** Replace an earlier run in --out (its files only). */
  overwrite?: boolean;
  quiet?: boolean;
  /** Worker processes on this machine. @default os.availableParallelism() */
  workers?: number;
  /** "i/N": process one shard of N, for `toolformer merge`. */
  shard?: string;
  /** redis://host:port[/db]: enqueue the chunks for `toolformer worker`s and follow the run. */
  queue?: string;
  /** Input items per chunk. @default DEFAULT_CHUNK_ITEMS */
  chunk?: number;
  /** MCP servers whose tools the run adds: commands (stdio) or http(s) URLs. */
  mcp?: string[];
  /** After the run: `toolformer export` it in these formats (comma-separated parquet, chat, text) to <out>/export/<format>. */
  export?: string;
  /** The record field / Parquet column holding the text. @default "text" */
  textColumn?: string;
  /** The record field / Parquet column holding the id. @default "id" */
  idColumn?: string;
  /** The reader's byte budgets (config `inputLimits`): a record, a zstd window, one Parquet read. */
  maxRecordBytes?: number;
  maxZstdWindow?: number;
  maxRowGroupBytes?: number;
}

/** Threshold flags (--tau-s, --tau-f, --k, --m, --control-margin) override every tool's, the MCP servers' tools included. */
function applyThresholdFlags(thresholds: Iterable<ToolThresholds>, flags: AnnotateFlags): void {
  for (const t of thresholds) {
    if (flags.tauS !== undefined) t.tauS = flags.tauS;
    if (flags.tauF !== undefined) t.tauF = flags.tauF;
    if (flags.k !== undefined) t.k = flags.k;
    if (flags.m !== undefined) t.m = flags.m;
    if (flags.controlMargin !== undefined) t.controlMargin = flags.controlMargin; // one margin for every tool
  }
}

/** `inputLimits` from the budget flags, only those given (a default run's config.json stays as it was). */
function inputLimitsOf(flags: AnnotateFlags): Partial<AnnotateConfig> {
  const given: [keyof InputLimits, string, number | undefined][] = [
    ['maxRecordBytes', '--max-record-bytes', flags.maxRecordBytes],
    ['maxZstdWindowBytes', '--max-zstd-window', flags.maxZstdWindow],
    ['maxRowGroupBytes', '--max-row-group-bytes', flags.maxRowGroupBytes],
  ];
  const limits: InputLimits = {};
  for (const [key, flag, value] of given) {
    if (value === undefined) continue;
    if (value < 1) throw new Error(`${flag} must be at least 1 byte (got ${value})`);
    limits[key] = value;
  }
  return Object.keys(limits).length > 0 ? { inputLimits: limits } : {};
}

/** Turn CLI flags into a validated config; a bad value is a one-line error naming the fix. */
export function configFromFlags(flags: AnnotateFlags): AnnotateConfig {
  const config = defaultConfig({
    tools: (flags.tools ?? TOOL_NAMES.join(',')).split(',').map((t) => t.trim()).filter(Boolean),
    seed: flags.seed,
    batchSize: flags.batchSize,
    toolConcurrency: flags.concurrency,
    ...(flags.toolTimeout !== undefined && { toolTimeoutMs: flags.toolTimeout }),
    ...(flags.maxDocTokens !== undefined && { maxDocTokens: flags.maxDocTokens === 0 ? null : flags.maxDocTokens }),
    lmProposals: flags.lmProposals,
    ...(flags.forceLmSampling ? { samplingGate: null } : {}),
    // auto starts as prompt; the bare-text probe may turn it to bare before the run (annotate()).
    lmContext: flags.lmContext === 'bare' ? 'bare' : 'prompt',
    programmatic: flags.programmatic !== false,
    ...(flags.topK !== undefined && { topK: flags.topK }),
    ...(flags.controlMargin !== undefined ? { controlMargin: flags.controlMargin } : {}),
    ...(flags.control === false ? { controlMargin: null } : {}),
    ...(flags.mcp?.length ? { mcp: [...flags.mcp] } : {}),
    // Only when given, so that a default run's config.json is unchanged.
    ...(flags.textColumn !== undefined || flags.idColumn !== undefined
      ? { inputColumns: { ...(flags.textColumn !== undefined && { text: flags.textColumn }), ...(flags.idColumn !== undefined && { id: flags.idColumn }) } }
      : {}),
    ...inputLimitsOf(flags),
  });
  applyThresholdFlags(Object.values(config.thresholds), flags);
  // Checked here, not only in validateConfig, so that the message names the flag.
  if (config.tools.length === 0 && !flags.mcp?.length) throw new Error(`no tools: pass --tools with some of ${TOOL_NAMES.join(', ')}, or --mcp <server>`);
  if (flags.batchSize < 1) throw new Error(`--batch-size must be ≥ 1 (got ${flags.batchSize}): pass --batch-size 16`);
  if (config.toolTimeoutMs < 1) throw new Error(`--tool-timeout must be ≥ 1 ms (got ${config.toolTimeoutMs}): pass --tool-timeout 30000`);
  if (flags.concurrency < 1) throw new Error(`--concurrency must be ≥ 1 (got ${flags.concurrency}): pass --concurrency 4`);
  const problem = validateConfig(config, TOOL_NAMES);
  if (problem) throw new Error(problem);
  return config;
}

/**
 * An upper bound on the documents in the inputs, for the progress bar's ETA: line breaks of .jsonl files (counted
 * in 1 MiB chunks, never holding a file in memory), one per .txt file; unknown (Infinity) for directories and for
 * compressed or Parquet files.
 */
export function countRecords(inputs: readonly string[]): number {
  let n = 0;
  const chunk = Buffer.alloc(1 << 20);
  for (const input of inputs) {
    try {
      const st = statSync(input);
      if (st.isDirectory()) return Infinity;
      if (!st.isFile()) continue; // a FIFO or device: the reader reports it, and reading it here could block
      if (input.endsWith('.txt')) {
        n++;
        continue;
      }
      // Compressed JSONL and Parquet: no cheap count from the bytes (unknown, as for a directory).
      if (isCorpusFormat(input)) return Infinity;
      const fd = openSync(input, 'r');
      try {
        let last = 0x0a;
        for (let read; (read = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
          for (let i = 0; i < read; i++) if (chunk[i] === 0x0a) n++;
          last = chunk[read - 1];
        }
        if (last !== 0x0a) n++; // a last line without a break
      } finally {
        closeSync(fd);
      }
    } catch {
      // A missing or unreadable input is reported by the reader as an error record.
    }
  }
  return n;
}

export async function annotateCommand(inputs: string[], flags: AnnotateFlags): Promise<RunStats> {
  const started = performance.now();
  const config = configFromFlags(flags);
  if (flags.export) {
    exportFormats(flags.export);
    if (flags.shard) throw new Error('--export with --shard: export after `toolformer merge` (toolformer export <out> --format …)');
  }
  const chunkItems = flags.chunk ?? DEFAULT_CHUNK_ITEMS;
  if (chunkItems < 1) throw new Error(`--chunk must be ≥ 1 (got ${chunkItems}): pass --chunk ${DEFAULT_CHUNK_ITEMS}`);
  const shard = flags.shard === undefined ? null : parseShard(flags.shard);
  if ([shard, flags.queue, flags.workers].filter((x) => x != null).length > 1) {
    throw new Error('--workers, --shard and --queue exclude each other: pass one');
  }
  // The MCP connections live in this process: worker processes, shards and queue workers would not have them.
  if (flags.mcp?.length && (shard || flags.queue || (flags.workers ?? 1) > 1)) {
    throw new Error('--mcp runs in one process: drop --workers, --shard and --queue (the MCP servers are connected to this process only)');
  }
  // Before the model loads, so that a wrong --out fails at once: runs are never mixed.
  if (flags.overwrite && flags.resume) throw new Error('--overwrite and --resume exclude each other: pass one');
  RunFiles.assertUsableOutDir(flags.out);
  // Every input path the reader will skip, named once (stats.json counts them too).
  const skipped = skipLine(summarizeSkips(listInputs(inputs)));
  if (skipped) console.error(skipped);
  if (flags.overwrite) {
    RunFiles.removeRun(flags.out);
    // A sharded or queued run's chunks too.
    for (const name of ['chunks', 'manifest.json']) rmSync(join(flags.out, name), { recursive: true, force: true });
  }
  if (shard) {
    // Shards share --out: each skips the chunks already there; chunk files of another run are refused.
  } else if (flags.queue) {
    // Imported on use: nothing loads ioredis/BullMQ unless --queue is given.
    const { assertQueueReachable } = await import('./scale/redis.ts');
    await assertQueueReachable(flags.queue);
    if (!flags.resume) RunFiles.assertNoRun(flags.out);
  } else if (!flags.resume) RunFiles.assertNoRun(flags.out);
  else if (!resumableCheckpoint(flags.out)) console.error(`toolformer: no checkpoint in ${flags.out}: starting a fresh run`);
  // MCP servers: one that fails to start is a warning, not the end of the run; all are closed when it ends.
  const mcp = flags.mcp?.length
    ? await import('./mcp/run-tools.ts').then(({ connectMcpTools }) =>
        connectMcpTools(flags.mcp!, TOOL_NAMES, (line) => console.error(`toolformer: ${line}`)))
    : undefined;
  try {
    return await annotateWith(inputs, flags, config, { started, chunkItems, shard }, mcp);
  } finally {
    await mcp?.close();
  }
}

async function annotateWith(
  inputs: string[],
  flags: AnnotateFlags,
  config: AnnotateConfig,
  { started, chunkItems, shard }: { started: number; chunkItems: number; shard: ReturnType<typeof parseShard> | null },
  mcp?: McpTools,
): Promise<RunStats> {
  if (mcp) {
    // The servers' tools join the run after the built-in ones, with their specs' thresholds (PAPER_DEFAULTS) and
    // the threshold flags applied as to every tool.
    const thresholds = mcp.specs.map((s) => ({ ...s.thresholds }));
    applyThresholdFlags(thresholds, flags);
    mcp.specs.forEach((s, i) => {
      config.tools.push(s.name);
      config.thresholds[s.name] = thresholds[i];
    });
    if (config.tools.length === 0) throw new Error('no tools: no --mcp server gave a usable tool and --tools is empty');
    const problem = validateConfig(config, [...TOOL_NAMES, ...mcp.specs.map((s) => s.name)]);
    if (problem) throw new Error(problem);
  }
  const resolved = await resolveModel(flags.model);
  const bound = Math.min(flags.maxDocs ?? Infinity, countRecords(inputs));
  // --workers: how many processes, in chunks of how many items (with --mcp one process: the connections live here).
  const cores = mcp ? 1 : flags.workers ?? availableParallelism();
  // Embedded chunks need no stable ids: on a small corpus they shrink so every worker gets ~4 (fewer idle tails).
  const poolChunk = flags.chunk ?? Math.max(1, Math.min(chunkItems, Math.ceil(bound / (cores * 4))));
  const poolWorkers = shard || flags.queue ? 1 : Math.min(cores, Math.ceil(bound / poolChunk) || 1);
  // Forked before this process loads its own model and probes: their start-up (model, tools, knowledge base) overlaps
  // ours. Each chunk message carries the final config (with the probe's counts).
  const pool = poolWorkers > 1 ? (await import('./scale/pool.ts')).startWorkers(poolWorkers, resolved.dir, flags.dtype, config) : null;
  const lm = await loadModel(flags.model, { dtype: flags.dtype });
  // The run's modules load only once flags and model are known to be good (the tool specs came with the config:
  // the registry is where the tools and their thresholds are listed).
  const [{ runAnnotate }, { createNodeParts }] = await Promise.all([import('./annotate-run.ts'), import('./parts.ts')]);
  const parts = await createNodeParts(lm, config, mcp ? [...TOOL_SPECS, ...mcp.specs] : undefined);
  // Before anything is written: the probes' counts are part of the run's config (config.json, the queue's run id).
  await runProbes(parts.parts, config, flags.lmContext, (line) => console.log(line)); // information, not an error: stdout
  const meta = {
    model: resolved.cache ? `${resolved.cache.id}@${resolved.cache.revision}` : relative(process.cwd(), resolve(flags.model)) || '.',
    ...(flags.dtype && flags.dtype !== 'fp32' ? { modelDtype: flags.dtype } : {}),
    modelMaxLength: lm.maxLength,
    translationEngine: parts.translation,
    ...(mcp ? { mcpServers: mcp.servers } : {}),
    versions: packageVersions(),
  };
  const total = Number.isFinite(bound) ? bound : 0;
  const progress = startProgress(total, flags.quiet);

  let stats: RunStats;
  if (shard || flags.queue) {
    const identity = runIdentity({ modelDir: resolved.dir, dtype: flags.dtype ?? 'fp32', meta, config, maxDocs: flags.maxDocs, chunkItems });
    const inputsDigest = digestInputs(inputs);
    const run = digestOf({ identity, inputsDigest });
    mkdirSync(flags.out, { recursive: true });
    assertChunksOfRun(flags.out, run); // before config.json is written: a refused shard changes nothing
    RunFiles.writeJson(flags.out, 'config.json', { ...meta, inputs, inputsDigest, maxDocs: flags.maxDocs ?? null, config });
    if (shard) {
      const { runShard } = await import('./scale/shard.ts');
      const done = await runShard({ parts: parts.parts, config, inputs, outDir: flags.out, run, chunkItems, maxDocs: flags.maxDocs, shard, onChunk: ({ docs }) => progress.update(docs, 0) });
      progress.stop();
      console.log(`shard ${shard.index}/${shard.count}: ${done.mine} of ${done.chunks} chunks (${done.skipped} already done) in ${flags.out}/chunks; when all ${shard.count} shards are done: toolformer merge ${flags.out}`);
      const cut = searchBudgetLine(done.stats, config.maxDocTokens);
      if (cut) console.error(cut);
      return done.stats;
    }
    const { runQueued } = await import('./scale/queue.ts');
    stats = await runQueued({ url: flags.queue!, identity, inputsDigest, run, config, inputs, outDir: flags.out, chunkItems, maxDocs: flags.maxDocs, resume: flags.resume, onProgress: ({ docs, kept }) => progress.update(docs, kept) });
  } else {
    const onDoc = ({ docs, stats }: { docs: number; stats: RunStats }) => progress.update(docs, keptCalls(stats));
    const { runPool } = await import('./scale/pool.ts');
    stats = pool
      ? await runPool({ workers: pool, inputs, outDir: flags.out, resume: flags.resume, maxDocs: flags.maxDocs, config, meta, chunkItems: poolChunk, onChunk: onDoc })
      : await runAnnotate(parts.parts, { inputs, outDir: flags.out, resume: flags.resume, maxDocs: flags.maxDocs, config, meta, onDoc });
  }
  progress.stop();
  printSummary(stats, flags.out, (performance.now() - started) / 1000, config);
  if (flags.export) {
    const { exportRun } = await import('./export/export-command.ts');
    for (const format of exportFormats(flags.export)) {
      const done = await exportRun(flags.out, { format, overwrite: true });
      console.log(`exported ${done.documents} documents, ${done.calls} calls as ${format} to ${done.out}`);
    }
  }
  return stats;
}

/**
 * The probes before a run, into `config` (what `npm start` does before its first document; the real-size bench
 * times the same call): the bare-text probe decides `--lm-context auto` (with `bare` forced it is still run and
 * recorded: does the model write calls?); with the prompt context, the sampling probe decides the sampling gate.
 * `notice` gets their one-line summaries.
 */
export async function runProbes(parts: PipelineParts, config: AnnotateConfig, lmContext: AnnotateFlags['lmContext'], notice: (line: string) => void): Promise<void> {
  const [{ probeBare, probeSampling }, { probeNotices }, { chooseLmContext, lmContextNotice }] = await Promise.all([
    import('../core/stages/sampling-probe.ts'),
    import('../core/sampling/sampling-gate.ts'),
    import('../core/sampling/lm-context.ts'),
  ]);
  if (lmContext !== 'prompt' && config.lmProposals) {
    config.bareProbe = await probeBare(parts, config);
    if ((lmContext ?? 'auto') === 'auto') config.lmContext = chooseLmContext(config.bareProbe);
    notice(lmContextNotice(config.lmContext, config.bareProbe));
  }
  if (config.lmContext === 'prompt' && config.samplingGate && config.lmProposals) {
    config.samplingProbe = await probeSampling(parts, config);
    for (const line of probeNotices(config.samplingProbe, config.samplingGate)) notice(line);
  }
}

/** `--export parquet,chat`: the export registry's check (formats.ts), before the run starts. */
export const exportFormats = exportFormatList;

/** A progress bar on a terminal, a line every 10 s otherwise, nothing with --quiet. */
function startProgress(total: number, quiet?: boolean) {
  const bar = quiet || !process.stderr.isTTY ? null : new SingleBar({
    format: 'annotate |{bar}| {value}/{total} docs | kept {kept} | ETA {eta_formatted}',
    hideCursor: true,
  });
  bar?.start(total, 0, { kept: 0 });
  let lastLog = 0;
  return {
    update(docs: number, kept: number) {
      if (bar) bar.update(docs, { kept });
      else if (!quiet && performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        console.error(`annotate: ${docs}${total ? '/' + total : ''} docs, ${kept} kept calls`);
      }
    },
    stop: () => bar?.stop(),
  };
}

function printSummary(stats: RunStats, out: string, seconds: number, config: AnnotateConfig): void {
  console.log(['', ...runSummary(stats, seconds)].join('\n'));
  console.log(`wrote ${out}/{train,calls,errors}.jsonl, config.json, stats.json`);
  // A warning, once per run: the documents whose search was cut (stats.json has the same).
  const cut = searchBudgetLine(stats, config.maxDocTokens);
  if (cut) console.error(cut);
}
