import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../core/default-config.ts';
import { freezePlan } from '../../../core/run-plan.ts';
import type { PipelineParts } from '../../../core/stages/stages.ts';
import { addRunCommands } from '../../cli/cli-run-commands.ts';
import { digestInputs } from '../../corpus/input-digest.ts';
import { loadModel } from '../../model/load-model.ts';
import { createNodeParts } from '../../tools/parts.ts';
import { runAnnotate } from '../annotate-run.ts';
import type { Chunk, ChunkResult } from '../chunks.ts';
import { runFilesStore } from '../run-files-store.ts';
import type { Executor } from '../run-loop.ts';
import { startRun } from '../start-run.ts';
import { inProcessExecutor } from './in-process.ts';
import { type ExecutorKind, EXECUTORS, optionValue, registerExecutor } from './registry.ts';

/**
 * A new executor needs nothing but this file and one registry entry: it takes whole batches of chunks, runs each batch
 * through the in-process executor and hands the results back in reverse order (as a remote pool might). Registered
 * here, it is an `annotate --reversed <n>` option, part of the flags' exclusivity check, and startRun's; the one
 * loop's committer still writes the same bytes as a plain run — resume and --max-docs included. Real data: the
 * committed tiny-random model, six documents and a bad record (and the bundled sample's first three through the CLI).
 */
const root = resolve(import.meta.dirname, '../../../..');
const tmp = mkdtempSync(join(tmpdir(), 'fake-executor-'));
const corpus = join(tmp, 'corpus.jsonl');
const sample = readFileSync(join(root, 'corpus/sample.jsonl'), 'utf8').trim().split('\n');
writeFileSync(corpus, [...sample.slice(0, 3), '{"id": "broken", "text": ', ...sample.slice(3, 6), ''].join('\n'));
const config = defaultConfig({ tools: ['Calculator', 'Calendar'], seed: 5, controlMargin: null });
for (const t of Object.values(config.thresholds)) Object.assign(t, { k: 2, m: 1, tauF: 0.05 });
const meta = { model: 'models/tiny-random' };
let parts: PipelineParts;

/** Runs chunks `batch` at a time through `inner` and returns each batch's results last first. */
function reversingExecutor(inner: Executor, batch: number): Executor & { batches: number } {
  const executor = {
    batches: 0,
    async run(chunks: AsyncIterable<Chunk>, done: (r: ChunkResult) => void) {
      let held: Chunk[] = [];
      const flush = async () => {
        const results: ChunkResult[] = [];
        await inner.run((async function* () { yield* held; })(), (r) => results.push(r));
        for (const r of results.reverse()) done(r);
        held = [];
        executor.batches++;
      };
      for await (const chunk of chunks) if (held.push(chunk) === batch) await flush();
      if (held.length > 0) await flush();
    },
  };
  return executor;
}

/** The new executor's one entry: its option, when it applies, one process, its executor and the run's files. */
let lastExecutor: (Executor & { batches: number }) | null = null;
const reversed: ExecutorKind = {
  name: 'reversed',
  option: { name: 'reversed', value: '<n>', integer: true, description: 'chunks per batch, each batch handed back last first (a test executor)' },
  oneProcess: true,
  applies: (flags) => optionValue(flags, reversed.option) != null,
  async make(plan, start) {
    lastExecutor = reversingExecutor(start.inProcess!, optionValue(start.flags, reversed.option) as number);
    return { executor: lastExecutor, store: runFilesStore(plan, start.flags.out, start.flags.resume), chunkItems: 2 };
  },
};
registerExecutor(reversed);

const FILES = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json', 'config.json', 'checkpoint.json'];
const read = (name: string, file: string) => readFileSync(join(tmp, name, file), 'utf8');
const runFake = async (name: string, options: { maxDocs?: number; resume?: boolean } = {}) => {
  const plan = freezePlan(meta, { inputs: [corpus], inputsDigest: digestInputs([corpus]), maxDocs: options.maxDocs, config });
  const flags = { out: join(tmp, name), resume: options.resume, reversed: 3 };
  const done = await startRun(plan, 'reversed', { flags, inProcess: inProcessExecutor(parts, plan.config) });
  return { ...done, batches: lastExecutor!.batches };
};

beforeAll(async () => {
  parts = (await createNodeParts(await loadModel(join(root, 'models/tiny-random')), config)).parts;
  await runAnnotate(parts, { inputs: [corpus], outDir: join(tmp, 'plain'), meta, config });
}, 120_000);

describe('an executor added in a test file, run by startRun', () => {
  it('writes the same files as the in-process run, though it returns results out of order', async () => {
    const done = await runFake('fake');
    expect(done).toMatchObject({ chunks: 4, selected: 4, skipped: 0, batches: 2 });
    expect(done.stats).toMatchObject({ docsRead: 6, badRecords: 1 });
    expect(read('plain', 'calls.jsonl').length).toBeGreaterThan(0);
    for (const f of FILES) expect(read('fake', f), f).toBe(read('plain', f));
  }, 120_000);

  it('stops at --max-docs and resumes to the same files', async () => {
    const first = await runFake('resumed', { maxDocs: 2 });
    expect(first.stats.docsRead).toBe(2);
    await runFake('resumed', { resume: true });
    for (const f of FILES.filter((f) => f !== 'config.json')) expect(read('resumed', f), f).toBe(read('plain', f));
  }, 120_000);
});

/** The CLI's annotate command, built from the registry with the test's executor in it. */
function annotateProgram(): Command {
  const program = new Command().exitOverride();
  addRunCommands(program);
  return program;
}
const annotate = (out: string, ...more: string[]) =>
  annotateProgram().parseAsync(['node', 'toolformer', 'annotate', join(root, 'corpus/sample.jsonl'), '--model', join(root, 'models/tiny-random'), '--max-docs', '3', '--tools', 'Calculator,Calendar', '--quiet', '--out', join(tmp, out), ...more]);

describe('the registered executor through `toolformer annotate`', () => {
  it('is an option of annotate, and excludes the other executors\' options', async () => {
    const help = annotateProgram().commands.find((c) => c.name() === 'annotate')!.helpInformation();
    expect(help).toContain('--reversed <n>');
    expect(EXECUTORS.at(-1)!.name).toBe('in-process');
    await expect(annotate('refused', '--reversed', '2', '--workers', '2')).rejects.toThrow('--workers, --shard, --queue and --reversed exclude each other: pass one');
  });

  it('annotates three documents of the sample to the bytes of --workers 1', async () => {
    process.env.TOOLFORMER_CACHE = join(tmp, 'cache'); // nothing cached outside the test's folder
    // The probes run in both (a cached verdict would make config.json's probeCache note differ).
    await annotate('cli-plain', '--workers', '1', '--no-probe-cache');
    lastExecutor = null;
    await annotate('cli-reversed', '--reversed', '2', '--no-probe-cache');
    expect(lastExecutor!.batches).toBe(1); // 3 documents, 2 items per chunk: 2 chunks, one batch of 2
    expect(JSON.parse(read('cli-plain', 'stats.json')).docsRead).toBe(3);
    for (const f of FILES) expect(read('cli-reversed', f), f).toBe(read('cli-plain', f));
  }, 240_000);
});
