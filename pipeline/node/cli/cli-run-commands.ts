/**
 * The run's commands: annotate (the pipeline), export, merge and worker (scale-out). Each imports its module on use:
 * a bad flag fails in a second, before the pipeline's modules load.
 */
import { type Command, Option } from 'commander';
import { RUN_DEFAULTS } from '../../core/run-defaults.ts';
import { DEFAULT_INPUTS } from '../system/package-paths.ts';
import { EXECUTORS } from '../run/executors/registry.ts';
import { checkCommandPaths } from '../system/safe-paths.ts';
import { DEFAULT_EXPORT_FORMAT, EXPORT_FORMAT_NAMES, exportFormatHelp } from '../export/formats.ts';
import {
  addOptions, callPlacementOption, catalogOption, integer, lmOptions, mcpOption, number, onUse, quietOption, retrieverOption, seedOption, tauFFloorFlag, toolsOption,
} from './cli-options.ts';

export function addRunCommands(program: Command): void {
  defineAnnotate(program);
  defineExport(program);
  defineMerge(program);
  defineWorker(program);
}

function defineAnnotate(program: Command): void {
  const annotate = program
    .command('annotate')
    .description('find, execute, score and filter API calls in a corpus; write finetuning JSONL to --out')
    .argument('[inputs...]', '.jsonl, .jsonl.gz, .jsonl.zst, .parquet, .txt files or directories of them (default: the bundled corpus, corpus/sotu.jsonl and corpus/factbook.jsonl)')
    .option('--text-column <name>', 'the record field / Parquet column holding the text (default text)')
    .option('--id-column <name>', 'the record field / Parquet column holding the id (default id; without one: <file>:<line or row>)')
    .option('--max-record-bytes <n>', 'largest record: a JSONL line (decompressed), a .txt file, a Parquet cell; longer is a bad record (default 4 MiB)', integer('--max-record-bytes'))
    .option('--max-zstd-window <n>', 'largest window a .zst frame may declare, bytes; a bigger one refuses the file (default 8 MiB)', integer('--max-zstd-window'))
    .option('--max-row-group-bytes <n>', 'decoded bytes of one Parquet read: bigger row groups are read in slices; a page over it is refused (default 128 MiB)', integer('--max-row-group-bytes'));
  addOptions(annotate, lmOptions())
    .addOption(toolsOption(' (default: every tool in the registry)'))
    .addOption(mcpOption())
    .addOption(catalogOption("add a tool catalog's tools, run in-process like the built-in ones (no MCP server; with --workers, --shard or --queue every process loads it)"))
    .option('--tool-retrieval <k>', 'each document goes only through the k tools retrieved for it (tools with a pre-filter keep theirs)', integer('--tool-retrieval'))
    .addOption(retrieverOption('the retriever for --tool-retrieval: '))
    .option('--tau-s <x>', 'τ_s for every tool (default: the paper\'s per tool)', number('--tau-s'))
    .option('--tau-f <x>', 'τ_f for every tool (default: the paper\'s per tool)', number('--tau-f'))
    .option('--k <n>', 'positions per document and tool', integer('--k'))
    .option('--m <n>', 'sampled calls per position', integer('--m'))
    .option('--max-docs <n>', 'stop after this many documents', integer('--max-docs'))
    .option('--max-doc-tokens <n>', `search budget: look for calls in each document's first n tokens only (the whole text is still written out; cut documents are counted and named); 0: no budget (default ${RUN_DEFAULTS.maxDocTokens})`, integer('--max-doc-tokens'))
    .addOption(seedOption(RUN_DEFAULTS.seed))
    .option('--batch-size <n>', 'sequences per forward pass', integer('--batch-size'), RUN_DEFAULTS.batchSize)
    .option('--concurrency <n>', 'concurrent tool calls', integer('--concurrency'), RUN_DEFAULTS.toolConcurrency)
    .option('--tool-timeout <ms>', `a tool call running longer is a tool_error (wall-clock, so a loaded machine can change results; default ${RUN_DEFAULTS.toolTimeoutMs})`, integer('--tool-timeout'))
    .option('--no-lm-proposals', 'only programmatic proposers (no LM sampling)')
    .option('--force-lm-sampling', 'keep sampling calls for a tool even when its first 100 samples almost never parse')
    .addOption(new Option('--lm-context <how>', "what the LM's positions and calls condition on: prompt (each tool's prompt P(x), for a model that never saw a call), bare (the text before the position only, for a model finetuned on calls), auto (bare when calls sampled from the bare text parse)").choices(['auto', 'prompt', 'bare']).default('auto'))
    .option('--no-programmatic', 'no heuristic positions and no programmatic proposers: every call is sampled by the LM')
    .option('--top-k <n>', `top-k of LM sampling (default ${RUN_DEFAULTS.topK})`, integer('--top-k'))
    .option('--control-margin <nats>', `counterfactual control: keep a call only if its result beats a distractor by this many nats, for every tool (default: each tool's own margin, else ${RUN_DEFAULTS.controlMargin}; pipeline/node/README.md lists them)`, number('--control-margin'))
    .option('--no-control', 'no counterfactual control')
    .option('--no-probe-cache', "run the probes even when the verdict cache ($TOOLFORMER_CACHE, default ~/.cache/toolformer) holds this model's, seed's and tools' verdicts, and cache nothing")
    .option('--tau-f-floor <x>', "the lowest τ_f the run's losses must stay exact for: L_b is scored only where L_a − L_c reaches min(this, the tool's τ_f); kept calls never change (default 0, stats.json's first τ_f, keeps its grid exact; `tau-f`: each tool's own τ_f, only the L_b a verdict needs, the grid below it counting undecided calls)", tauFFloorFlag)
    .addOption(callPlacementOption())
    .option('--out <dir>', 'output directory', 'out/run')
    .option('--resume', 'continue a killed run in --out from its checkpoint')
    .option('--overwrite', 'replace an earlier run in --out')
    .addOption(quietOption('no progress bar'))
    .option('--export <formats>', `after the run, export it: comma-separated ${EXPORT_FORMAT_NAMES.join(', ')} (to <out>/export/<format>; see \`toolformer export\`)`);
  // The executors' options, from their registry (pipeline/node/run/executors/registry.ts): the files are
  // byte-identical whichever of these is used.
  for (const { option } of EXECUTORS) {
    if (!option) continue;
    const flag = `--${option.name} ${option.value}`;
    if (option.integer) annotate.option(flag, option.description, integer(`--${option.name}`));
    else annotate.option(flag, option.description);
  }
  annotate
    .option('--chunk <n>', 'input items per chunk (scale-out unit)', integer('--chunk'))
    .action(async (inputs: string[], opts) => {
      // Imported on use: a bad flag or model fails in a second, before the pipeline's modules load.
      const { annotateCommand } = await import('../commands/annotate-command.ts');
      await annotateCommand(inputs.length ? inputs : DEFAULT_INPUTS, opts);
    });
}

function defineExport(program: Command): void {
  program
    .command('export')
    .description('a finished annotate run as a dataset directory with a Hub dataset card: Parquet shards, chat tool-call records, or train.jsonl')
    .argument('<run>', "the run's --out directory")
    .option(`--format <${EXPORT_FORMAT_NAMES.join('|')}>`, exportFormatHelp(), DEFAULT_EXPORT_FORMAT)
    .option('--out <dir>', 'output directory (default <run>/export/<format>)')
    .option('--overwrite', 'replace --out if it exists')
    .option('--license <id>', "the card's licence (a Hub licence id; the corpus's own licence applies)", 'other')
    .option('--source-dataset <hub id>', 'the Hub dataset the corpus came from (card: source_datasets extended|<id>)')
    .option('--shard-docs <n>', 'parquet: documents per shard', integer('--shard-docs'), 100_000)
    .option('--row-group-docs <n>', 'parquet: documents per row group', integer('--row-group-docs'), 1_000)
    .option('--system <text>', 'chat: the system message (--no-system: none)')
    .option('--no-system', 'chat: no system message')
    .action(async (run: string, opts) => {
      checkCommandPaths({ outputs: [['--out', opts.out]] });
      const { exportRun } = await import('../export/export-command.ts');
      if (opts.shardDocs < 1 || opts.rowGroupDocs < 1) throw new Error('--shard-docs and --row-group-docs must be ≥ 1');
      const system = opts.system === false ? null : typeof opts.system === 'string' ? opts.system : undefined;
      const done = await exportRun(run, { ...opts, system });
      console.log(`exported ${done.documents} documents, ${done.calls} calls to ${done.out}: ${done.files.join(', ')}, README.md`);
    });
}

function defineMerge(program: Command): void {
  program
    .command('merge')
    .description('assemble the chunks of a --shard or --queue run into train/calls/errors.jsonl and stats.json')
    .argument('<dir>', 'the run\'s --out directory')
    .action(onUse(async () => (await import('../run/chunk-files.ts')).mergeCommand));
}

function defineWorker(program: Command): void {
  const worker = program
    .command('worker')
    .description('take chunks from an `annotate --queue` run until it is done (one sandboxed process per core)')
    .requiredOption('--queue <url>', 'redis://host:port[/db]');
  addOptions(worker, lmOptions({ modelLead: "the run's model, byte for byte (or the same served model): ", device: false }))
    .option('--processes <n>', 'sandboxed processes (default: the number of cores)', integer('--processes'))
    .option('--lock-ms <n>', 'job lock; a killed worker\'s chunk is redone after about this long', integer('--lock-ms'), 30_000)
    .addOption(quietOption('no progress lines'))
    .action(onUse(async () => (await import('../run/executors/worker-command.ts')).workerCommand));
}
