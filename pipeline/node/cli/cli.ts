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
 *   toolformer score <text> --call "Calculator(400/1400)" --before <word>   the three losses of one call
 *   toolformer mcp [--http <port>]   serve the tools to MCP clients (stdio or Streamable HTTP)
 *   toolformer retrieve "<text>" [--catalog mathjs] [--json]   rank the tools for a text (tool retrieval)
 *
 * This file is the entry (argv hand-off, errors); the commands are defined by group: cli-run-commands.ts (annotate,
 * export, merge, worker), cli-model-commands.ts (example, score, generate, eval, toolkens, loss, finetune),
 * cli-tool-commands.ts (mcp, retrieve, tools), with the options they share in cli-options.ts.
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { planArgv } from '../system/long-argv.ts';
import { addModelCommands } from './cli-model-commands.ts';
import { addRunCommands } from './cli-run-commands.ts';
import { addToolCommands } from './cli-tool-commands.ts';

/** package.json's version, for `--version` (read, not imported: no JSON module at start-up). */
const VERSION: string = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version;

const program = new Command('toolformer')
  .description('Toolformer data generation (Schick et al., 2023) with a local ONNX causal LM')
  .version(VERSION, '-V, --version', 'print the version (package.json) and exit')
  // A bad flag is one line naming it (no usage dump); --help lists the options.
  .configureOutput({ outputError: (message, write) => write(`toolformer: ${message.replace(/^error: /, '').trim().replace(/\s*\n\s*/g, ' ')} (see --help)\n`) });

addRunCommands(program);
addModelCommands(program);
addToolCommands(program);

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
