/**
 * `toolformer` — the command line.
 *
 *   toolformer annotate [inputs…]   run the pipeline, write out/<run>/ (--workers N, --shard i/N, --queue redis://…)
 *   toolformer merge <dir>          assemble a sharded or queued run's chunks
 *   toolformer export <run> --format parquet|chat|text   the run as a dataset directory with a Hub dataset card
 *   toolformer worker --queue URL   annotate chunks of a queued run
 *   toolformer example [--tau-f X]  the worked example: L_a 2.5, L_b 2.1, L_c 0.8 → usefulness 1.3
 *   toolformer generate "<prompt>" [--json] | --input f --out f   generate with live tools
 *   toolformer eval --model <dir> [--trials k]   with vs without tools on held-out task families
 *   toolformer finetune --data <train.jsonl…>   finetune a model on C* and export it
 *   toolformer score <text> --call "Calculator(400/1400)" --at <offset>   the three losses of one call
 *   toolformer mcp [--http <port>]   serve the tools to MCP clients (stdio or Streamable HTTP)
 *   toolformer retrieve "<text>" [--catalog mathjs] [--json]   rank the tools for a text (tool retrieval)
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { judge } from '../core/scoring/judge.ts';
import { paperNames } from '../core/scoring/losses.ts';
import { DTYPE_FILES, DTYPES } from '../core/lm/dtypes.ts';
import { DEVICES } from '../core/lm/devices.ts';
import { CALL_PLACEMENTS, RUN_DEFAULTS } from '../core/run-defaults.ts';
import { DEFAULT_RETRIEVER, RETRIEVERS } from '../core/retrieval/retriever.ts';
import { CATALOGS } from '../core/tools/catalogs/index.ts';
import { DEFAULT_GENERATE_MODEL, DEFAULT_INPUTS, DEFAULT_MODEL } from './package-paths.ts';
import { planArgv } from './long-argv.ts';
import { checkCommandPaths } from './safe-paths.ts';
import { EXPORT_FORMAT_NAMES, exportFormatHelp } from './export/formats.ts';
import { rememberToolsOutput } from './start-cache.mjs';

const number = (name: string) => (value: string) => {
  const x = Number(value);
  if (value.trim() === '' || !Number.isFinite(x)) throw new InvalidArgumentError(`${name} must be a number`);
  return x;
};
const integer = (name: string) => (value: string) => {
  const x = number(name)(value);
  if (!Number.isInteger(x) || x < 0) throw new InvalidArgumentError(`${name} must be a non-negative integer`);
  return x;
};

/** The catalogs `--catalog` knows, for help: "mathjs — mathjs's documented functions …". */
const catalogHelp = CATALOGS.map((c) => `${c.name} — ${c.description}`).join('; ');
/** The retrievers `--retriever` knows, the default marked. */
const retrieverHelp = RETRIEVERS.map((r) => (r === DEFAULT_RETRIEVER ? `${r} (default)` : r)).join(', ');

/** `--dtype`: which of the model's ONNX files, by Transformers.js's dtype names (core/lm/dtypes.ts, the web's `?dtype=` too). */
const dtypeOption = () =>
  new Option('--dtype <dtype>', `ONNX file under onnx/: ${DTYPES.map((d) => `${d} ${DTYPE_FILES[d]}`).join(', ')}`)
    .choices(DTYPES)
    .default('fp32');

/** `--device`: where the LM runs (core/lm/devices.ts; node/device.ts maps it to ONNX Runtime's execution providers). */
const deviceOption = () =>
  new Option('--device <device>', 'where the LM runs: cpu, webgpu (a GPU through Vulkan, Metal or D3D12) or cuda (needs onnxruntime-node\'s CUDA provider: pipeline/node/README.md, Devices)')
    .choices(DEVICES)
    .default('cpu');

/** `--call-placement` (annotate, score): where a call sits when its losses are scored; absent: prefix, not recorded. */
const callPlacementOption = () =>
  new Option('--call-placement <where>', "where a call sits when its losses are scored: prefix (before the window, the paper's, for a model that never saw a call; the default) or inline (at its position as the output writes it, for a model finetuned on calls; x_{1:i−1} forwarded once per position)").choices(CALL_PLACEMENTS);

/** A repeatable option's values, in order. */
const collect = (value: string, previous: string[]) => [...previous, value];


/** package.json's version, for `--version` (read, not imported: no JSON module at start-up). */
const VERSION: string = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;

const program = new Command('toolformer')
  .description('Toolformer data generation (Schick et al., 2023) with a local ONNX causal LM')
  .version(VERSION, '-V, --version', 'print the version (package.json) and exit')
  // A bad flag is one line naming it (no usage dump); --help lists the options.
  .configureOutput({ outputError: (message, write) => write(`toolformer: ${message.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' ')} (see --help)\n`) });

program
  .command('annotate')
  .description('find, execute, score and filter API calls in a corpus; write finetuning JSONL to --out')
  .argument('[inputs...]', '.jsonl, .jsonl.gz, .jsonl.zst, .parquet, .txt files or directories of them (default: the bundled corpus, corpus/sotu.jsonl and corpus/factbook.jsonl)')
  .option('--text-column <name>', 'the record field / Parquet column holding the text (default text)')
  .option('--id-column <name>', 'the record field / Parquet column holding the id (default id; without one: <file>:<line or row>)')
  .option('--max-record-bytes <n>', 'largest record: a JSONL line (decompressed), a .txt file, a Parquet cell; longer is a bad record (default 4 MiB)', integer('--max-record-bytes'))
  .option('--max-zstd-window <n>', 'largest window a .zst frame may declare, bytes; a bigger one refuses the file (default 8 MiB)', integer('--max-zstd-window'))
  .option('--max-row-group-bytes <n>', 'decoded bytes of one Parquet read: bigger row groups are read in slices; a page over it is refused (default 128 MiB)', integer('--max-row-group-bytes'))
  .option('--model <dir|org/name>', 'Hugging Face ONNX causal-LM directory, or a model id in the local HF cache (HF_HOME; never downloaded)', DEFAULT_MODEL)
  .addOption(dtypeOption())
  .addOption(deviceOption())
  .option('--tools <list>', 'comma-separated tools (default: every tool in the registry)')
  .option('--mcp <server>', "add an MCP server's tools: a command (run without a shell, stdio) or an http(s) URL (repeatable)", collect, [])
  .option('--catalog <name>', `add a tool catalog's tools, run in-process like the built-in ones (no MCP server; with --workers, --shard or --queue every process loads it). Catalogs: ${catalogHelp}`)
  .option('--tool-retrieval <k>', 'each document goes only through the k tools retrieved for it (tools with a pre-filter keep theirs)', integer('--tool-retrieval'))
  .option('--retriever <name>', `the retriever for --tool-retrieval: ${retrieverHelp}`)
  .option('--tau-s <x>', 'τ_s for every tool (default: the paper\'s per tool)', number('--tau-s'))
  .option('--tau-f <x>', 'τ_f for every tool (default: the paper\'s per tool)', number('--tau-f'))
  .option('--k <n>', 'positions per document and tool', integer('--k'))
  .option('--m <n>', 'sampled calls per position', integer('--m'))
  .option('--max-docs <n>', 'stop after this many documents', integer('--max-docs'))
  .option('--max-doc-tokens <n>', `search budget: look for calls in each document's first n tokens only (the whole text is still written out; cut documents are counted and named); 0: no budget (default ${RUN_DEFAULTS.maxDocTokens})`, integer('--max-doc-tokens'))
  .option('--seed <n>', 'random seed', integer('--seed'), RUN_DEFAULTS.seed)
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
  .option('--tau-f-floor <x>', "the lowest τ_f the run's losses must stay exact for, ≤ 0: L_b is scored only where L_a − L_c reaches min(this, the tool's τ_f) (default 0, stats.json's first τ_f)", number('--tau-f-floor'))
  .addOption(callPlacementOption())
  .option('--out <dir>', 'output directory', 'out/run')
  .option('--resume', 'continue a killed run in --out from its checkpoint')
  .option('--overwrite', 'replace an earlier run in --out')
  .option('--quiet', 'no progress bar')
  .option('--export <formats>', `after the run, export it: comma-separated ${EXPORT_FORMAT_NAMES.join(', ')} (to <out>/export/<format>; see \`toolformer export\`)`)
  // Scale out (pipeline/node/scale/): the files are byte-identical whichever of these is used.
  .option('--workers <n>', 'worker processes on this machine (default: the number of cores)', integer('--workers'))
  .option('--shard <i/N>', 'process shard i of N (Slurm arrays, k8s indexed Jobs); then `toolformer merge <out>`')
  .option('--queue <url>', 'spread the chunks over `toolformer worker`s through Redis (redis://host:port[/db])')
  .option('--chunk <n>', 'input items per chunk (scale-out unit)', integer('--chunk'))
  .action(async (inputs: string[], opts) => {
    // Imported on use: a bad flag or model fails in a second, before the pipeline's modules load.
    const { annotateCommand } = await import('./annotate-command.ts');
    await annotateCommand(inputs.length ? inputs : DEFAULT_INPUTS, opts);
  });

program
  .command('export')
  .description('a finished annotate run as a dataset directory with a Hub dataset card: Parquet shards, chat tool-call records, or train.jsonl')
  .argument('<run>', "the run's --out directory")
  .requiredOption(`--format <${EXPORT_FORMAT_NAMES.join('|')}>`, exportFormatHelp())
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
    const { exportRun } = await import('./export/export-command.ts');
    if (opts.shardDocs < 1 || opts.rowGroupDocs < 1) throw new Error('--shard-docs and --row-group-docs must be ≥ 1');
    const system = opts.system === false ? null : typeof opts.system === 'string' ? opts.system : undefined;
    const done = await exportRun(run, { ...opts, system });
    console.log(`exported ${done.documents} documents, ${done.calls} calls to ${done.out}: ${done.files.join(', ')}, README.md`);
  });

program
  .command('merge')
  .description('assemble the chunks of a --shard or --queue run into train/calls/errors.jsonl and stats.json')
  .argument('<dir>', 'the run\'s --out directory')
  .action(async (dir: string) => {
    const { mergeCommand } = await import('./scale/chunk-files.ts');
    mergeCommand(dir);
  });

program
  .command('worker')
  .description('take chunks from an `annotate --queue` run until it is done (one sandboxed process per core)')
  .requiredOption('--queue <url>', 'redis://host:port[/db]')
  .option('--model <dir>', 'the model directory (must be the run\'s model, byte for byte)', DEFAULT_MODEL)
  .addOption(dtypeOption())
  .option('--processes <n>', 'sandboxed processes (default: the number of cores)', integer('--processes'))
  .option('--lock-ms <n>', 'job lock; a killed worker\'s chunk is redone after about this long', integer('--lock-ms'), 30_000)
  .option('--quiet', 'no progress lines')
  .action(async (opts) => {
    const { workerCommand } = await import('./scale/worker-command.ts');
    await workerCommand(opts);
  });

program
  .command('example')
  .description("the paper's worked example: usefulness = min(L_a, L_b) − L_c and the decision at τ_f")
  .option('--tau-f <x>', 'filtering threshold τ_f', number('--tau-f'), 1.0)
  .option('--la <x>', 'L_a: loss without any call', number('--la'), 2.5)
  .option('--lb <x>', 'L_b: loss with the call but no result', number('--lb'), 2.1)
  .option('--lc <x>', 'L_c: loss with the call and its result', number('--lc'), 0.8)
  .action((opts: { tauF: number; la: number; lb: number; lc: number }) => {
    const losses = { noCall: opts.la, callOnly: opts.lb, withResult: opts.lc };
    const v = judge(losses, opts.tauF);
    const fmt = (x: number) => x.toFixed(2);
    console.log(`${paperNames.noCall} (no call)          = ${fmt(losses.noCall)}`);
    console.log(`${paperNames.callOnly} (call, no result)   = ${fmt(losses.callOnly)}`);
    console.log(`${paperNames.withResult} (call and result)  = ${fmt(losses.withResult)}`);
    console.log(`usefulness = min(L_a, L_b) − L_c = min(${fmt(losses.noCall)}, ${fmt(losses.callOnly)}) − ${fmt(losses.withResult)} = ${fmt(v.usefulness)}`);
    console.log(`τ_f = ${opts.tauF}: ${v.kept ? 'KEPT' : 'DROPPED'} (${fmt(v.usefulness)} ${v.kept ? '≥' : '<'} ${opts.tauF})`);
  });

program
  .command('score')
  .description('the three losses of one call at one position')
  .argument('<text>', 'the text')
  .requiredOption('--call <call>', 'the call as written in text, Tool(argument) (`toolformer tools` lists the tools)')
  .requiredOption('--at <offset>', 'character offset where the call goes', integer('--at'))
  .option('--model <dir|org/name>', 'Hugging Face ONNX causal-LM directory, or a model id in the local HF cache (HF_HOME; never downloaded)', DEFAULT_MODEL)
  .addOption(dtypeOption())
  .addOption(deviceOption())
  .option('--date <yyyy-mm-dd>', "the document's date (a tool that answers with today's date reads it)")
  .addOption(callPlacementOption())
  .action(async (text: string, opts) => {
    const { scoreCommand } = await import('./score-command.ts');
    await scoreCommand(text, opts);
  });

program
  .command('generate')
  .description("generate with live tools (the paper's inference): a call starts when \" [\" is in the top k")
  .argument('[prompt]', 'the prompt (or --input)')
  .option('--model <dir>', 'Hugging Face ONNX causal-LM directory; the default is models/toolformer, the bundled model finetuned to write calls', DEFAULT_GENERATE_MODEL)
  .addOption(deviceOption())
  .option('--no-tools', 'mask " [": the model answers alone')
  .option('--max-new-tokens <n>', 'tokens after the prompt, inserted results included', integer('--max-new-tokens'), 32)
  .option('--top-k <n>', 'a call starts when " [" is among the k most likely tokens', integer('--top-k'), 10)
  .option('--max-calls <n>', 'calls per input', integer('--max-calls'), 1)
  .option('--temperature <x>', '0 = greedy', number('--temperature'), 0)
  .option('--seed <n>', 'sampling seed', integer('--seed'), 0)
  .option('--date <yyyy-mm-dd>', "today, for a tool that answers with the date (default: today, UTC)")
  .option('--json', 'print one JSON object {prompt, text, calls} instead of streaming')
  .option('--input <file>', 'JSONL of {id, prompt[, date]}, one result line each to --out')
  .option('--out <file>', 'results JSONL for --input')
  .option('--toolkens <file>', 'ToolkenGPT toolkens (toolformer toolkens train): calls come from toolkens, not " ["')
  .option('--toolken-bias <x>', 'added to the toolken logits (the paper: 3–10)', number('--toolken-bias'), 0)
  .addOption(new Option('--toolken-mode <mode>', 'tool mode: free (the tool\'s prompt until ")") or constrained (the model picks among the proposer\'s calls)').choices(['free', 'constrained']).default('free'))
  .action(async (prompt: string | undefined, opts) => {
    checkCommandPaths({ inputs: [['--input', opts.input]], outputs: [['--out', opts.out]] });
    const { generateCommand } = await import('./generate-command.ts');
    await generateCommand(prompt, opts);
  });

program
  .command('eval')
  .description('held-out task families (facts, arithmetic, dates, relevance) with and without tools; writes eval.json and eval.md')
  .option('--model <dir>', 'Hugging Face ONNX causal-LM directory', DEFAULT_MODEL)
  .addOption(deviceOption())
  .option('--trials <k>', 'sampled trials with tools for pass@k and pass^k', integer('--trials'), 3)
  .option('--per-family <n>', 'prompts per family', integer('--per-family'), 40)
  .option('--temperature <x>', 'temperature of the sampled trials', number('--temperature'), 0.7)
  .option('--max-new-tokens <n>', 'tokens after the prompt, inserted results included', integer('--max-new-tokens'), 48)
  .option('--top-k <n>', 'a call starts when " [" is among the k most likely tokens', integer('--top-k'), 10)
  .option('--data <files...>', 'more finetuning files to check the prompts against (besides the model\'s train-record.json)')
  .option('--set <prompts.jsonl>', 'eval prompts {id, family, prompt, answers[, tool, date, phrasing]} instead of the built-in families (e.g. pipeline/eval/experiment/prompts.jsonl)')
  .option('--no-without-tools', 'generate with tools only (no " ["-masked baseline run)')
  .option('--out <dir>', 'output directory (default out/eval/<model name>)')
  .option('--toolkens <file>', 'ToolkenGPT toolkens (toolformer toolkens train): calls with tools come from toolkens, not " ["')
  .option('--toolken-bias <x>', 'added to the toolken logits (the paper: 3–10)', number('--toolken-bias'), 0)
  .addOption(new Option('--toolken-mode <mode>', 'tool mode: free (the tool\'s prompt until ")") or constrained (the model picks among the proposer\'s calls)').choices(['free', 'constrained']).default('free'))
  .option('--quiet', 'no progress')
  .action(async (opts) => {
    checkCommandPaths({ inputs: [['--set', opts.set], ['--data', opts.data]], outputs: [['--out', opts.out]] });
    const { runEval, table } = await import('./eval-command.ts');
    const report = await runEval(opts);
    console.log(table(report));
    console.log(`overlap with the finetuning data: ${report.overlap.prompts.length} of ${report.prompts} prompts`);
  });

const toolkens = program.command('toolkens').description("ToolkenGPT's toolkens on a frozen model: one trained output row per tool");
toolkens
  .command('train')
  .description('train one toolken per tool (W_τ only, the model frozen) from the kept calls of a run; write a safetensors file and its card')
  .argument('<inputs...>', "a run directory (its train.jsonl) or JSONL files of {text} with calls inlined")
  .option('--model <dir|org/name>', 'the frozen Hugging Face ONNX causal-LM directory', DEFAULT_MODEL)
  .addOption(dtypeOption())
  .addOption(deviceOption())
  .requiredOption('--out <file>', 'the toolkens file (.safetensors); the card is written next to it (.md)')
  .option('--seed <n>', 'initial W_τ, validation split and batch order', integer('--seed'), 1)
  .option('--lr <x>', 'Adam step size', number('--lr'), 1e-3)
  .option('--epochs <n>', 'most epochs', integer('--epochs'), 10)
  .option('--batch-size <n>', 'positions per Adam step', integer('--batch-size'), 64)
  .option('--val <share>', 'share of the records held out for early stopping', number('--val'), 0.1)
  .option('--patience <n>', 'epochs without a better validation loss before stopping', integer('--patience'), 2)
  .option('--only-toolkens', 'mask every word label: only toolken decisions count (ToolkenGPT only_functoken)')
  .option('--tools <list>', 'comma-separated tools, one toolken each (default: every tool the data calls)')
  .option('--max-positions <n>', 'most labelled positions cached (memory: n × hidden size × 4 bytes)', integer('--max-positions'), 200_000)
  .option('--quiet', 'no progress')
  .action(async (inputs: string[], opts) => {
    checkCommandPaths({ inputs: [['toolkens train', inputs]], outputs: [['--out', opts.out]], directories: true });
    const { toolkensTrain } = await import('./toolkens-command.ts');
    await toolkensTrain(inputs, opts);
  });

program
  .command('loss')
  .description('held-out loss without calls (nats/token) of a model on a corpus: ≥ --tokens tokens in context-sized windows, per-window means kept')
  .requiredOption('--model <dir>', 'Hugging Face ONNX causal-LM directory')
  .requiredOption('--input <corpus.jsonl>', 'documents {text} to score')
  .addOption(deviceOption())
  .option('--tokens <n>', 'tokens to score at least', integer('--tokens'), 50_000)
  .requiredOption('--out <loss.json>', 'result file {tokens, windows, meanNll, perWindow}')
  .action(async (opts) => {
    checkCommandPaths({ inputs: [['--input', opts.input]], outputs: [['--out', opts.out]] });
    const { lossCommand } = await import('./loss-command.ts');
    const r = await lossCommand(opts);
    console.log(`${r.tokens} tokens: ${r.meanNll.toFixed(4)} nats/token`);
  });

program
  .command('finetune')
  .description('finetune a model on C* (annotated texts with calls inlined) mixed with its base training data')
  .requiredOption('--data <files...>', 'train.jsonl files written by annotate')
  .option('--base <dir>', 'model to start from (its onnx/model.onnx and tokenizer.json)', DEFAULT_MODEL)
  .option('--out <dir>', 'exported model directory', 'models/toolformer')
  .option('--corpus <files...>', 'plain corpus for the base-mixture rows', DEFAULT_INPUTS)
  .option('--work <dir>', 'checkpoints and log', '.cache/finetune')
  .option('--mix <x>', 'share of rows from the base mixture (plain corpus + copy exercises); the rest are C*', number('--mix'), 0.4)
  .option('--upsample <n>', 'copies of each C* record', integer('--upsample'), 1)
  .option('--steps <n>', 'optimiser steps (sets the cosine schedule)', integer('--steps'), 600)
  .option('--batch <n>', 'rows per step', integer('--batch'), 16)
  .option('--lr <x>', 'peak learning rate', number('--lr'), 3e-4)
  .option('--warmup <n>', 'warmup steps', integer('--warmup'), 30)
  .option('--protect <x>', 'learning-rate multiplier on the constructed induction heads', number('--protect'), 0.1)
  .option('--seed <n>', 'random seed', integer('--seed'), 1)
  .option('--eval-every <n>', 'probe every n steps', integer('--eval-every'), 100)
  .option('--ckpt-every <n>', 'checkpoint every n steps', integer('--ckpt-every'), 25)
  .option('--minutes <x>', 'stop (checkpoint and export) after this wall time', number('--minutes'), 1e9)
  .option('--resume', 'continue from the checkpoint in --work', false)
  .option('--no-export', 'skip the export')
  .option('--quiet', 'no progress bar (log lines instead)', false)
  .option('--rebuild <command>', 'the rebuild command the model card shows (default: this command line)')
  .action(async (opts) => {
    checkCommandPaths({ inputs: [['--data', opts.data], ['--corpus', opts.corpus]], outputs: [['--out', opts.out], ['--work', opts.work]] });
    const { finetune } = await import('../train/finetune.ts');
    const rebuild = opts.rebuild ?? `npx toolformer finetune ${process.argv.slice(3).filter((a) => a !== '--resume').join(' ')}`;
    await finetune({ ...opts, rebuild });
  });

const port = (value: string) => {
  const x = integer('--http')(value);
  if (x > 65535) throw new InvalidArgumentError('--http must be a port, 0–65535');
  return x;
};

program
  .command('mcp')
  .description('serve the tools to MCP clients: stdio by default, Streamable HTTP with --http <port>')
  .option('--http <port>', 'serve Streamable HTTP at http://<host>:<port>/mcp instead of stdio (0: any free port)', port)
  .option('--host <address>', 'address to bind with --http (default 127.0.0.1)')
  .option('--token <token>', 'with --http: require "Authorization: Bearer <token>" (or set TOOLFORMER_MCP_TOKEN)')
  .option('--allow-origin <origin>', 'with --http: a browser Origin to accept besides localhost (repeatable)', collect, [])
  .option('--tools <list>', 'comma-separated tools to serve (default: all; with --catalog: none of the built-in ones)')
  .option('--catalog <name>', `serve a tool catalog: ${catalogHelp}`)
  .action(async (opts) => {
    const { mcpCommand } = await import('./mcp/mcp-command.ts');
    await mcpCommand(opts);
  });

program
  .command('retrieve')
  .description("rank the run's tools for a text (the tool retriever of annotate --tool-retrieval)")
  .argument('<text>', 'a request, a sentence, a document')
  .option('--model <dir|org/name>', 'the LM whose hidden states the dense retriever reads', DEFAULT_MODEL)
  .addOption(deviceOption())
  .option('--tools <list>', 'built-in tools to rank (default: all of them)')
  .option('--catalog <name>', `add a tool catalog: ${catalogHelp}`)
  .option('--mcp <server>', "add an MCP server's tools (repeatable)", collect, [])
  .option('--top <n>', 'tools to show', integer('--top'), 5)
  .option('--retriever <name>', `${RETRIEVERS.join(', ')} (fusion: BM25 + dense by reciprocal rank)`, DEFAULT_RETRIEVER)
  .option('--json', 'one JSON object: {text, retriever, model, tools, ranking: [{name, score}]}')
  .action(async (text: string, opts) => {
    const { retrieveCommand } = await import('./retrieve-command.ts');
    await retrieveCommand(text, opts);
  });

program
  .command('tools')
  .description('the registered tools as function-calling definitions (JSON on stdout)')
  .option('--format <openai|mcp>', 'OpenAI tools array or MCP tools/list entries', 'openai')
  .action(async (opts: { format: string }) => {
    if (opts.format !== 'openai' && opts.format !== 'mcp') throw new Error(`--format must be openai or mcp (got ${JSON.stringify(opts.format)})`);
    const [{ TOOL_SPECS }, { mcpTools, openAiTools }] = await Promise.all([
      import('../core/tools/registry.ts'),
      import('../core/tools/definitions.ts'),
    ]);
    const tools = opts.format === 'mcp' ? mcpTools(TOOL_SPECS) : openAiTools(TOOL_SPECS);
    const output = `${JSON.stringify(tools, null, 2)}\n`;
    process.stdout.write(output);
    // bin.mjs prints it from here next time, without the TypeScript loader, while these sources stay as they are.
    rememberToolsOutput(opts.format, output);
  });

// `toolformer … | head`: a reader that stops early ends the output, not the process with a stack trace (the summary
// is printed after the run's files are complete).
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code !== 'EPIPE') throw err;
  process.exit(0);
});

// Fatal configuration errors: one line naming the fix, non-zero exit.
const fatal = (err: unknown) => {
  console.error(`toolformer: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
};
try {
  // A command line over ~16 KB runs in a child with its arguments in a file: onnxruntime-node crashes on a long one.
  const plan = planArgv();
  if (plan.kind === 'run') {
    process.argv = [process.argv[0], process.argv[1], ...plan.args];
    program.parseAsync().catch(fatal);
  }
} catch (err) {
  fatal(err);
}
