/**
 * `toolformer annotate`: flags → checks → the frozen run plan (core/run-plan.ts: config, MCP tools, probe verdicts,
 * model) → the one loop (run-loop.ts) with the executor and store the flags choose → summary, export.
 */
import { channel } from 'node:diagnostics_channel';
import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AnnotateConfig } from '../../core/config.ts';
import { type RunPlan, freezePlan, planConfig, withVerdicts } from '../../core/run-plan.ts';
import { TOOL_NAMES } from '../../core/tools/registry.ts';
import type { RunStats } from '../../core/stats.ts';
import type { AnnotateFlags } from './annotate-flags.ts';
import { modelRef, openLM } from '../model/lm-backends/registry.ts';
import { backendFlags } from '../cli/cli-options.ts';
import { countRecords } from '../corpus/count-records.ts';
import { exportFormatList } from '../export/formats.ts';
import { digestInputs } from '../corpus/input-digest.ts';
import type { McpTools } from '../mcp/run-tools.ts';
import { skipLine, summarizeSkips } from '../corpus/corpus-files.ts';
import { listInputs } from '../corpus/read-corpus.ts';
import { packageVersions } from '../system/package-versions.ts';
import { RunFiles } from '../run/run-files.ts';
import { type DirLock, lockDirectory } from '../../io/dir-lock.ts';
import { type ExecutorKind, checkExecutorFlags, checkRunOut, chooseExecutor } from '../run/executors/registry.ts';
import { printSummary, startProgress } from '../run/run-progress.ts';
import { DEFAULT_CHUNK_ITEMS } from '../run/plan.ts';

/**
 * Published once per run, when the plan is frozen and the first document is about to start (diagnostics_channel: free
 * when nobody listens). pipeline/bench/probe-cache.ts measures the CPU a run spends before its first document here.
 */
export const runStart = channel('toolformer:run-start');

export type { AnnotateFlags } from './annotate-flags.ts';

/** Turn CLI flags into a validated config (core/run-plan.ts); a bad value is a one-line error naming the fix. */
export const configFromFlags = (flags: AnnotateFlags): AnnotateConfig => planConfig(flags);

/** `--export parquet,chat`: the export registry's check (formats.ts), before the run starts. */
export const exportFormats = exportFormatList;

/** Every check that needs no model: a bad flag or --out fails in a second and changes nothing. */
async function checkFlags(inputs: string[], flags: AnnotateFlags): Promise<{ asked: ExecutorKind; lock: DirLock | null }> {
  if (flags.export) exportFormats(flags.export);
  const chunkItems = flags.chunk ?? DEFAULT_CHUNK_ITEMS;
  if (chunkItems < 1) throw new Error(`--chunk must be ≥ 1 (got ${chunkItems}): pass --chunk ${DEFAULT_CHUNK_ITEMS}`);
  // The executors' options (executors/registry.ts): each one's checks, one at most, and none that leaves this
  // process with --mcp (the MCP connections live here: worker processes, shards and queue workers would not have them).
  const asked = checkExecutorFlags(flags);
  // Before the model loads, so that a wrong --out fails at once: runs are never mixed.
  if (flags.overwrite && flags.resume) throw new Error('--overwrite and --resume exclude each other: pass one');
  RunFiles.assertUsableOutDir(flags.out);
  assertInputsExist(inputs);
  // One run per --out (io/dir-lock.ts), before --overwrite removes anything: a second annotate on a live run's folder is
  // refused instead of interleaving lines and checkpoints. Shards share --out by design (own chunk files): no lock.
  const lock = asked.sharesOut ? null : lockDirectory(flags.out, 'annotate run');
  await checkOut(inputs, flags, asked).catch((e) => (lock?.release(), Promise.reject(e)));
  return { asked, lock };
}

/**
 * Every input path names something: a typo, or a glob the shell did not expand (quoted, or matching nothing), is
 * one line and exit 1 before anything loads, not an error record in a run that reads nothing.
 */
function assertInputsExist(inputs: readonly string[]): void {
  for (const path of inputs) {
    if (lstatSync(path, { throwIfNoEntry: false })) continue; // a dangling link is the reader's `unreadable` record
    const glob = /[*?[]/.test(path) ? ' (a pattern the shell did not expand: it matches no file, or it was quoted)' : '';
    throw new Error(`input ${path}: no such file or directory${glob}; pass existing files or folders`);
  }
}

/** The checks of --out and the inputs under the run's lock; --overwrite's removal. */
async function checkOut(inputs: string[], flags: AnnotateFlags, asked: ExecutorKind): Promise<void> {
  // Every input path the reader will skip, named once (stats.json counts them too).
  const skipped = skipLine(summarizeSkips(listInputs(inputs)));
  if (skipped) console.error(skipped);
  if (flags.overwrite) {
    RunFiles.removeRun(flags.out);
    // A sharded or queued run's chunks too.
    for (const name of ['chunks', 'manifest.json']) rmSync(join(flags.out, name), { recursive: true, force: true });
  }
  await checkRunOut(asked, flags);
}

export async function annotateCommand(inputs: string[], flags: AnnotateFlags): Promise<RunStats> {
  const started = performance.now();
  configFromFlags(flags); // the flags' own errors first
  const { asked, lock } = await checkFlags(inputs, flags);
  // MCP servers: one that fails to start is a warning, not the end of the run; all are closed when it ends. (Should
  // the import itself fail, the lock goes at the process's exit.)
  const mcp = flags.mcp?.length
    ? await import('../mcp/run-tools.ts').then(({ connectMcpTools }) => connectMcpTools(flags.mcp!, TOOL_NAMES, (line) => console.error(`toolformer: ${line}`)))
    : undefined;
  try {
    const { stats, plan } = await annotateWith(inputs, flags, mcp);
    if (!asked.report) await afterRun(stats, plan, flags, started);
    return stats;
  } finally {
    await mcp?.close();
    lock?.release();
  }
}

async function annotateWith(inputs: string[], flags: AnnotateFlags, mcp?: McpTools): Promise<{ stats: RunStats; plan: RunPlan }> {
  // The resolved tool list: the servers' tools join after the built-in ones, the threshold flags applied to all.
  // --catalog: its tools (and its library) load only now, when asked for.
  const catalog = flags.catalog === undefined ? undefined : await (await import('../tools/parts.ts')).loadIsolatedCatalog(flags.catalog);
  const config = planConfig(flags, mcp?.specs, catalog);
  const opening = { dtype: flags.dtype, ...backendFlags(flags) };
  const ref = await modelRef(flags.model, opening);
  const bound = Math.min(flags.maxDocs ?? Infinity, countRecords(inputs));
  // The executor (executors/registry.ts): with --mcp one process, the connections live here (a catalog and the tool
  // retriever are rebuilt from the config in each process, createRunParts). What it starts early (the pool's workers)
  // overlaps this process's model and probes.
  const shape = { bound, oneProcess: mcp !== undefined };
  const kind = chooseExecutor(flags, shape);
  const early = await kind.early?.(flags, shape, { model: ref.path ?? flags.model, ...opening }, config);
  const lm = await openLM(flags.model, { ...opening, device: config.device });
  // The run's modules load only once flags and model are known to be good.
  const [{ createRunParts }, { cachedProbes }] = await Promise.all([import('../tools/parts.ts'), import('../run/probe-cache.ts')]);
  const parts = await createRunParts(lm, config, flags.model, mcp?.specs, catalog);
  // Before anything is written: the probes' verdicts are part of the plan (config.json, the queue's run id).
  // From the verdict cache when it has this model's, seed's and tools' (--no-probe-cache: always run).
  const probes = await cachedProbes(parts.parts, config, {
    lmContextFlag: flags.lmContext,
    modelDigest: () => ref.probeDigest(),
    dtype: flags.dtype ?? 'fp32',
    use: flags.probeCache !== false,
    notice: (line) => console.log(line), // information: stdout
    warn: (line) => console.error(line),
  });
  const meta = {
    model: ref.recorded,
    ...(flags.dtype && flags.dtype !== 'fp32' ? { modelDtype: flags.dtype } : {}),
    ...(opening.llamaGelu ? { llamaGelu: opening.llamaGelu } : {}),
    modelMaxLength: lm.maxLength,
    translationEngine: parts.translation,
    ...(mcp ? { mcpServers: mcp.servers } : {}),
    versions: packageVersions(),
  };
  const plan = freezePlan(meta, { inputs, inputsDigest: digestInputs(inputs), maxDocs: flags.maxDocs, config: withVerdicts(config, probes.verdicts), probeCache: probes.cache });
  const progress = startProgress(Number.isFinite(bound) ? bound : 0, flags.quiet);
  const [{ startRun }, { inProcessExecutor }] = await Promise.all([import('../run/start-run.ts'), import('../run/executors/in-process.ts')]);
  const inProcess = inProcessExecutor(parts.parts, plan.config);
  const start = { flags, inProcess, shape, early, modelDigest: () => ref.digest(), onCommit: ({ docs, kept }: { docs: number; kept: number }) => progress.update(docs, kept) };
  runStart.publish({ out: flags.out });
  try {
    const done = await startRun(plan, kind, start);
    if (kind.report) {
      progress.stop();
      kind.report(done, plan, flags);
    }
    return { stats: done.stats, plan };
  } finally {
    progress.stop();
  }
}

/** The summary, then `--export`. */
async function afterRun(stats: RunStats, plan: RunPlan, flags: AnnotateFlags, started: number): Promise<void> {
  printSummary(stats, flags.out, (performance.now() - started) / 1000, plan.config);
  if (!flags.export) return;
  const { exportRun } = await import('../export/export-command.ts');
  for (const format of exportFormats(flags.export)) {
    const done = await exportRun(flags.out, { format, overwrite: true });
    console.log(`exported ${done.documents} documents, ${done.calls} calls as ${format} to ${done.out}`);
  }
}
