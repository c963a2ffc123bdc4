/**
 * The executors of an annotate run, one entry each (run-loop.ts Executor): its CLI option, when it applies, whether
 * the run's work stays in one process, and how it makes its executor and store. `toolformer annotate`'s options
 * (cli-run-commands.ts), the flags' checks and the choice of executor (annotate-command.ts) and startRun
 * (../start-run.ts) all read this list; a new executor is one file plus one entry (fake-executor.test.ts adds one in
 * the test file). Entries import their implementation on use: a bad flag fails before BullMQ or the pipeline loads.
 *   - shard (`--shard i/N`) and queue (`--queue redis://…`): chunk files under <out>/chunks (a queued run merges them
 *     at the end);
 *   - pool (`--workers N`, the default on a machine with several cores) and in-process: the run's files directly.
 */
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { AnnotateConfig } from '../../../core/config.ts';
import type { RunPlan } from '../../../core/run-plan.ts';
import type { Dtype } from '../../model/hf-cache.ts';
import type { ModelOpen } from '../../model/lm-backends/registry.ts';
import { DEFAULT_CHUNK_ITEMS, parseShard } from '../plan.ts';
import { assertChunksOfRun, resumableCheckpoint } from '../resume-checks.ts';
import { RunFiles } from '../run-files.ts';
import type { Executor, LoopOptions, LoopResult } from '../run-loop.ts';
import { digestOf, runIdentity } from '../run-digest.ts';
import { searchBudgetLine } from '../run-summary.ts';
import type { PoolWorker } from './pool.ts';

/** The flags every executor reads; each one's own option is read by its name (optionValue). */
export interface ExecutionFlags {
  out: string;
  resume?: boolean;
  dtype?: Dtype;
  maxDocs?: number;
  /** Input items per chunk. @default DEFAULT_CHUNK_ITEMS */
  chunk?: number;
  export?: string;
}

/** An executor's CLI option: `--<name> <value>`; its value is the flags' `name` key (one word: commander's key). */
export interface ExecutorOption {
  name: string;
  /** The value's placeholder, e.g. `<n>`. */
  value: string;
  /** Parsed as an integer (cli-options.ts integer), else kept as the string given. */
  integer?: boolean;
  description: string;
}

/** The run as known before its plan: at most how many documents, and whether it must stay in this process (--mcp). */
export interface RunShape {
  bound: number;
  oneProcess: boolean;
}

/** What startRun (../start-run.ts) passes to an executor kind besides the plan. */
export interface RunStart {
  flags: ExecutionFlags;
  /** The in-process executor over this process's parts (in-process and shard runs; pool and queue work elsewhere). */
  inProcess?: Executor;
  shape?: RunShape;
  /** The model files' digest: part of a chunk run's identity (shard, queue). */
  modelDigest?: () => string;
  /** What the kind's `early` returned (the pool's forked workers). */
  early?: unknown;
  /** The queue gives up once Redis has been unreachable this long, ms. @default REDIS_GONE_MS */
  redisGoneMs?: number;
  onCommit?: LoopOptions['onCommit'];
}

/** An executor and store for the loop, and how many input items a chunk holds. */
export type Execution = Pick<LoopOptions, 'executor' | 'store' | 'chunkItems' | 'select'>;

export interface ExecutorKind {
  name: string;
  /** Its CLI option; none for the default (in-process). */
  option?: ExecutorOption;
  /** The run's work all stays in this process (MCP connections live here: --mcp refuses the others when asked for). */
  oneProcess: boolean;
  /** The flags ask for it. @default its option is given */
  asked?(flags: ExecutionFlags): boolean;
  /** This run can use it (chooseExecutor: one whose option is given first, then the first in the list; in-process, last, always can). */
  applies(flags: ExecutionFlags, shape: RunShape): boolean;
  /** Checks of its flags that need no model (a bad value fails in a second and changes nothing). */
  checkFlags?(flags: ExecutionFlags): void;
  /** Runs of it share --out by design (shards: each its own chunk files): no lock on --out, no check for a run there. */
  sharesOut?: boolean;
  /** The checks of --out under the run's lock, before the model loads. @default runFilesOut */
  checkOut?(flags: ExecutionFlags): Promise<void>;
  /** Started before this process loads its model and probes, so that their start-up overlaps (the pool's workers). */
  early?(flags: ExecutionFlags, shape: RunShape, model: ModelOpen, config: AnnotateConfig): Promise<unknown>;
  /** Its executor and store for the frozen plan. */
  make(plan: RunPlan, start: RunStart): Promise<Execution>;
  /** Said at the end instead of the summary and --export (a shard: what it did, and the merge to come). */
  report?(done: LoopResult, plan: RunPlan, flags: ExecutionFlags): void;
}

/** The value of an executor's option in the flags (undefined when not given). */
export const optionValue = (flags: ExecutionFlags, option: ExecutorOption | undefined): unknown =>
  option ? (flags as unknown as Record<string, unknown>)[option.name] : undefined;

const given = (kind: ExecutorKind, flags: ExecutionFlags) => optionValue(flags, kind.option) != null;
const chunkItemsOf = (flags: ExecutionFlags) => flags.chunk ?? DEFAULT_CHUNK_ITEMS;
const needs = <T>(value: T | undefined, what: string, kind: string): T => {
  if (value === undefined) throw new Error(`the ${kind} executor needs ${what}`);
  return value;
};

/** A run's files in --out (in-process, pool): a fresh run needs an empty place, a resume says when it starts afresh. */
async function runFilesOut(flags: ExecutionFlags): Promise<void> {
  if (!flags.resume) RunFiles.assertNoRun(flags.out);
  else if (!resumableCheckpoint(flags.out)) console.error(`toolformer: no checkpoint in ${flags.out}: starting a fresh run`);
}

/** The run's files as the store (run-files-store.ts). */
async function runFilesStoreOf(plan: RunPlan, flags: ExecutionFlags) {
  const { runFilesStore } = await import('../run-files-store.ts');
  return runFilesStore(plan, flags.out, flags.resume);
}

/** A chunk run (shard, queue): its identity and digest, refused chunk files of another run, config.json, the chunk dir. */
async function chunkRun(plan: RunPlan, start: RunStart, shard: boolean) {
  const { flags } = start;
  const chunkItems = chunkItemsOf(flags);
  const { chunkDirStore } = await import('../chunk-files.ts');
  const modelDigest = needs(start.modelDigest, "the model's digest", shard ? 'shard' : 'queue')();
  const identity = runIdentity({ modelDigest, dtype: flags.dtype ?? 'fp32', meta: plan as Parameters<typeof runIdentity>[0]['meta'], config: plan.config, maxDocs: flags.maxDocs, chunkItems });
  const run = digestOf({ identity, inputsDigest: plan.inputsDigest });
  mkdirSync(flags.out, { recursive: true });
  assertChunksOfRun(flags.out, run); // before config.json is written: a refused shard changes nothing
  RunFiles.writeJson(flags.out, 'config.json', plan);
  // A queued run merges at the end and reuses saved chunks on --resume; a shard always skips the chunks already there.
  const store = chunkDirStore(flags.out, run, { tools: plan.config.tools, chunkItems, reuse: shard ? true : flags.resume ?? false, merge: !shard });
  return { identity, run, store, chunkItems };
}

/** The pool for a run: processes (--workers, else the cores; one with --mcp) and items per chunk (~4 chunks each). */
function poolShape(flags: ExecutionFlags, shape: RunShape): { size: number; chunk: number } {
  const cores = shape.oneProcess ? 1 : (optionValue(flags, POOL_OPTION) as number | undefined) ?? availableParallelism();
  // Embedded chunks need no stable ids: on a small corpus they shrink so every worker gets ~4 (fewer idle tails).
  const chunk = flags.chunk ?? Math.max(1, Math.min(chunkItemsOf(flags), Math.ceil(shape.bound / (cores * 4))));
  return { size: Math.min(cores, Math.ceil(shape.bound / chunk) || 1), chunk };
}

const POOL_OPTION: ExecutorOption = { name: 'workers', value: '<n>', integer: true, description: 'worker processes on this machine (default: the number of cores)' };

/** `--shard i/N`: this process runs chunks k ≡ i (mod N) into <out>/chunks; `toolformer merge` assembles them. */
const shard: ExecutorKind = {
  name: 'shard',
  option: { name: 'shard', value: '<i/N>', description: 'process shard i of N (Slurm arrays, k8s indexed Jobs); then `toolformer merge <out>`' },
  oneProcess: false,
  applies: (flags) => given(shard, flags),
  checkFlags(flags) {
    if (flags.export) throw new Error('--export with --shard: export after `toolformer merge` (toolformer export <out> --format …)');
    parseShard(optionValue(flags, shard.option) as string);
  },
  sharesOut: true,
  checkOut: async () => {}, // shards share --out: each skips the chunks already there; chunk files of another run are refused
  async make(plan, start) {
    const { index, count } = parseShard(optionValue(start.flags, shard.option) as string);
    const { store, chunkItems } = await chunkRun(plan, start, true);
    return { executor: needs(start.inProcess, 'an in-process executor', 'shard'), store, chunkItems, select: (chunk) => chunk.index % count === index };
  },
  report(done, plan, flags) {
    const { index, count } = parseShard(optionValue(flags, shard.option) as string);
    console.log(`shard ${index}/${count}: ${done.selected} of ${done.chunks} chunks (${done.skipped} already done) in ${flags.out}/chunks; when all ${count} shards are done: toolformer merge ${flags.out}`);
    const cut = searchBudgetLine(done.stats, plan.config.maxDocTokens);
    if (cut) console.error(cut);
  },
};

/** `--queue redis://…`: chunks enqueued for `toolformer worker`s (queue.ts), saved to <out>/chunks, merged at the end. */
const queue: ExecutorKind = {
  name: 'queue',
  option: { name: 'queue', value: '<url>', description: 'spread the chunks over `toolformer worker`s through Redis (redis://host:port[/db])' },
  oneProcess: false,
  applies: (flags) => given(queue, flags),
  async checkOut(flags) {
    // Imported on use: nothing loads ioredis/BullMQ unless --queue is given.
    const { assertQueueReachable } = await import('./redis.ts');
    await assertQueueReachable(optionValue(flags, queue.option) as string);
    if (!flags.resume) RunFiles.assertNoRun(flags.out);
  },
  async make(plan, start) {
    const { identity, run, store, chunkItems } = await chunkRun(plan, start, false);
    const { queueExecutor } = await import('./queue.ts');
    const url = optionValue(start.flags, queue.option) as string;
    return { executor: queueExecutor({ url, identity, inputsDigest: plan.inputsDigest, run, config: plan.config, redisGoneMs: start.redisGoneMs }), store, chunkItems };
  },
};

/** `--workers N` (N > 1, the default on several cores): forked processes on this machine (pool.ts), the run's files. */
const pool: ExecutorKind = {
  name: 'pool',
  option: POOL_OPTION,
  oneProcess: false,
  asked: (flags) => ((optionValue(flags, POOL_OPTION) as number | undefined) ?? 1) > 1,
  applies: (flags, shape) => poolShape(flags, shape).size > 1,
  // Forked before this process loads its own model and probes: their start-up (model, tools, knowledge base) overlaps
  // ours. Each chunk message carries the plan's config (with the probes' verdicts).
  async early(flags, shape, model, config) {
    return (await import('./pool.ts')).startWorkers(poolShape(flags, shape).size, model, config);
  },
  async make(plan, start) {
    const { poolExecutor } = await import('./pool.ts');
    const workers = needs(start.early as PoolWorker[] | undefined, 'its started workers (early)', 'pool');
    const { chunk } = poolShape(start.flags, needs(start.shape, 'the run shape', 'pool'));
    return { executor: poolExecutor(workers, plan.config), store: await runFilesStoreOf(plan, start.flags), chunkItems: chunk };
  },
};

/** This process alone (in-process.ts): one item per chunk, so a checkpoint per document. */
const inProcess: ExecutorKind = {
  name: 'in-process',
  oneProcess: true,
  applies: () => true,
  async make(plan, start) {
    return { executor: needs(start.inProcess, 'an in-process executor', 'in-process'), store: await runFilesStoreOf(plan, start.flags), chunkItems: 1 };
  },
};

/** Every executor, in the order they are tried; in-process, which always applies, stays last. */
export const EXECUTORS: ExecutorKind[] = [pool, shard, queue, inProcess];

/** Add an executor (before in-process): its option joins the CLI's, the checks and the choice. */
export function registerExecutor(kind: ExecutorKind): void {
  if (EXECUTORS.some((k) => k.name === kind.name)) throw new Error(`an executor named ${kind.name} is registered already`);
  EXECUTORS.splice(EXECUTORS.length - 1, 0, kind);
}

export function executorNamed(name: string): ExecutorKind {
  const kind = EXECUTORS.find((k) => k.name === name);
  if (!kind) throw new Error(`no executor named ${name}: ${EXECUTORS.map((k) => k.name).join(', ')}`);
  return kind;
}

/** `--a, --b and --c`. */
const optionList = (kinds: ExecutorKind[]) => {
  const names = kinds.flatMap((k) => (k.option ? [`--${k.option.name}`] : []));
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names.join('');
};

/**
 * The executor flags' checks that need no model: each kind's own, at most one executor option, and with --mcp (its
 * connections live in this process) no kind asked for that spreads the work. Returns the kind the flags ask for.
 */
export function checkExecutorFlags(flags: ExecutionFlags & { mcp?: readonly string[] }): ExecutorKind {
  for (const kind of EXECUTORS) if (given(kind, flags)) kind.checkFlags?.(flags);
  if (EXECUTORS.filter((k) => given(k, flags)).length > 1) throw new Error(`${optionList(EXECUTORS)} exclude each other: pass one`);
  const asked = EXECUTORS.find((k) => (k.asked ? k.asked(flags) : given(k, flags)));
  if (flags.mcp?.length && asked && !asked.oneProcess) {
    throw new Error(`--mcp runs in one process: drop ${optionList(EXECUTORS.filter((k) => !k.oneProcess))} (the MCP servers are connected to this process only)`);
  }
  return asked ?? inProcess;
}

/** The kind this run uses: one whose option is given, if it applies; else the first that applies (the pool on several cores). */
export const chooseExecutor = (flags: ExecutionFlags, shape: RunShape): ExecutorKind =>
  EXECUTORS.find((k) => given(k, flags) && k.applies(flags, shape)) ?? EXECUTORS.find((k) => k.applies(flags, shape))!;

/** The checks of --out for the kind the flags ask for (its own, or a run's files). */
export const checkRunOut = (kind: ExecutorKind, flags: ExecutionFlags): Promise<void> => (kind.checkOut ?? runFilesOut)(flags);
