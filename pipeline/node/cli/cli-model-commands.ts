/**
 * The model's commands: example (the worked example), score, generate, eval, toolkens train, loss, finetune and convert.
 */
import { type Command, Option } from 'commander';
import { judge } from '../../core/scoring/judge.ts';
import { paperNames } from '../../core/scoring/losses.ts';
import { DEFAULT_GENERATE_MODEL, DEFAULT_INPUTS, DEFAULT_MODEL } from '../system/package-paths.ts';
import { checkCommandPaths } from '../system/safe-paths.ts';
import {
  addOptions, anyModelOption, callPlacementOption, decodingOptions, deviceOption, dtypeOption, integer, listenHostOption, llamaGeluOption, lmOptions, modelOption, number, onnxModelOption, onUse, port,
  quietOption, seedOption, servedModelOptions, toolsOption,
} from './cli-options.ts';

export function addModelCommands(program: Command): void {
  defineExample(program);
  defineScore(program);
  defineGenerate(program);
  defineEval(program);
  defineToolkens(program);
  defineLoss(program);
  defineFinetune(program);
  defineConvert(program);
  defineBuildLlama(program);
  defineServe(program);
}

function defineBuildLlama(program: Command): void {
  program
    .command('build-llama')
    .description("build llama.cpp for a .gguf model's --llama-gelu exact: ggml-cpu's GELU in float32, not through its float16 table (GPT-2 then matches ONNX Runtime within 1e-4 nats). CPU only, offline from the llama.cpp source node-llama-cpp ships, minutes of compiling; node-llama-cpp's prebuilt binaries stay as they are")
    .addOption(new Option('--gelu <how>', 'the GELU to build: exact').choices(['exact']).makeOptionMandatory())
    .option('--rebuild', 'build it again when it is built already')
    .action(onUse(async () => (await import('../model/lm-backends/llama-gelu-build.ts')).buildLlamaCommand));
}

function defineServe(program: Command): void {
  program
    .command('serve')
    .description("an OpenAI-compatible server (vLLM's /v1/completions with prompt_logprobs, /v1/models, /tokenize) over any model this project loads: many annotate --queue workers can score on one GPU machine")
    .addOption(modelOption())
    .addOption(dtypeOption())
    .addOption(deviceOption())
    .addOption(llamaGeluOption())
    .option('--served-model-name <name>', 'the name clients send as `model` (default: the --model argument)')
    .addOption(listenHostOption())
    .option('--port <port>', 'the TCP port (0: any free one, printed)', port('--port'), 8000)
    .option('--api-key-env <name>', 'require `Authorization: Bearer $<name>` on every request (the key is read from the environment, never a flag)')
    .addOption(quietOption('no line per request'))
    .action(onUse(async () => (await import('../serve/serve-command.ts')).serveCommand));
}

function defineExample(program: Command): void {
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
}

function defineScore(program: Command): void {
  const score = program
    .command('score')
    .description('the three losses of one call at one position')
    .argument('<text>', 'the text')
    .requiredOption('--call <call>', 'the call as written in text, Tool(argument) (`toolformer tools` lists the tools)')
    .option('--before <word>', 'the call goes just before this word or phrase (its first whole-word occurrence), at the end of the word before, as the pipeline places calls')
    .option('--at <offset>', 'or: the character offset where the call goes (the end of a word; one inside a word is warned about)', integer('--at'));
  addOptions(score, lmOptions())
    .option('--date <yyyy-mm-dd>', "the document's date (a tool that answers with today's date reads it)")
    .addOption(callPlacementOption())
    .action(onUse(async () => (await import('../commands/score-command.ts')).scoreCommand));
}

function defineGenerate(program: Command): void {
  const generate = program
    .command('generate')
    .description("generate with live tools (the paper's inference): a call starts when \" [\" is in the top k")
    .argument('[prompt]', 'the prompt (or --input)');
  const modelRole = '; models/toolformer is the bundled model finetuned to write calls; --toolkens needs an ONNX folder';
  addOptions(generate, decodingOptions({ modelRole, modelDefault: DEFAULT_GENERATE_MODEL, maxNewTokens: 32, temperature: 0, toolkenCalls: 'calls' }))
    .option('--no-tools', 'mask " [": the model answers alone')
    .option('--max-calls <n>', 'calls per input', integer('--max-calls'), 1)
    .addOption(seedOption(0, 'sampling seed'))
    .option('--date <yyyy-mm-dd>', "today, for a tool that answers with the date (default: today, UTC)")
    .option('--json', 'print one JSON object {prompt, text, calls} instead of streaming')
    .option('--input <file>', 'JSONL of {id, prompt[, date]}, one result line each to --out')
    .option('--out <file>', 'results JSONL for --input')
    .action(async (prompt: string | undefined, opts) => {
    checkCommandPaths({ inputs: [['--input', opts.input]], outputs: [['--out', opts.out]] });
    const { generateCommand } = await import('../commands/generate-command.ts');
    await generateCommand(prompt, opts);
  });
}

function defineEval(program: Command): void {
  const evaluate = program
    .command('eval')
    .description('held-out task families (facts, arithmetic, dates, relevance) with and without tools; writes eval.json and eval.md');
  const sampled = "the sampled trials'";
  addOptions(evaluate, decodingOptions({ modelRole: '; --toolkens needs an ONNX folder', modelDefault: DEFAULT_MODEL, maxNewTokens: 48, temperature: 0.7, sampled, toolkenCalls: 'calls with tools' }))
    .option('--trials <k>', 'sampled trials with tools for pass@k and pass^k', integer('--trials'), 3)
    .option('--per-family <n>', 'prompts per family', integer('--per-family'), 40)
    .option('--data <files...>', 'more finetuning files to check the prompts against (besides the model\'s train-record.json)')
    .option('--set <prompts.jsonl>', 'eval prompts {id, family, prompt, answers[, tool, date, phrasing]} instead of the built-in families (e.g. pipeline/eval/experiment/prompts.jsonl)')
    .option('--no-without-tools', 'generate with tools only (no " ["-masked baseline run)')
    .option('--out <dir>', 'output directory (default out/eval/<model name>)')
    .addOption(quietOption())
    .action(async (opts) => {
      checkCommandPaths({ inputs: [['--set', opts.set], ['--data', opts.data]], outputs: [['--out', opts.out]] });
      const { runEval, table } = await import('../commands/eval-command.ts');
      const report = await runEval(opts);
      console.log(table(report));
      console.log(`overlap with the finetuning data: ${report.overlap.prompts.length} of ${report.prompts} prompts`);
    });
}

function defineToolkens(program: Command): void {
  const toolkens = program.command('toolkens').description("ToolkenGPT's toolkens on a frozen model: one trained output row per tool");
  toolkens
    .command('train')
    .description('train one toolken per tool (W_τ only, the model frozen) from the kept calls of a run; write a safetensors file and its card')
    .argument('<inputs...>', "a run directory (its train.jsonl) or JSONL files of {text} with calls inlined")
    .addOption(onnxModelOption(', frozen', DEFAULT_MODEL))
    .addOption(dtypeOption())
    .addOption(deviceOption())
    .requiredOption('--out <file>', 'the toolkens file (.safetensors); the card is written next to it (.md)')
    .addOption(seedOption(1, 'initial W_τ, validation split and batch order'))
    .option('--lr <x>', 'Adam step size', number('--lr'), 1e-3)
    .option('--epochs <n>', 'most epochs', integer('--epochs'), 10)
    .option('--batch-size <n>', 'positions per Adam step', integer('--batch-size'), 64)
    .option('--val <share>', 'share of the records held out for early stopping', number('--val'), 0.1)
    .option('--patience <n>', 'epochs without a better validation loss before stopping', integer('--patience'), 2)
    .option('--only-toolkens', 'mask every word label: only toolken decisions count (ToolkenGPT only_functoken)')
    .addOption(toolsOption(', one toolken each (default: every tool the data calls)'))
    .option('--max-positions <n>', 'most labelled positions cached (memory: n × hidden size × 4 bytes)', integer('--max-positions'), 200_000)
    .addOption(quietOption())
    .action(async (inputs: string[], opts) => {
      checkCommandPaths({ inputs: [['toolkens train', inputs]], outputs: [['--out', opts.out]], directories: true });
      const { toolkensTrain } = await import('../commands/toolkens-command.ts');
      await toolkensTrain(inputs, opts);
    });
}

function defineLoss(program: Command): void {
  const loss = program
    .command('loss')
    .description('held-out loss without calls (nats/token) of a model on a corpus: ≥ --tokens tokens in context-sized windows, per-window means kept');
  addOptions(loss, [anyModelOption(), deviceOption(), llamaGeluOption(), ...servedModelOptions()])
    .requiredOption('--input <corpus.jsonl>', 'documents {text} to score')
    .option('--tokens <n>', 'tokens to score at least', integer('--tokens'), 50_000)
    .requiredOption('--out <loss.json>', 'result file {tokens, windows, meanNll, perWindow}')
    .action(async (opts) => {
      checkCommandPaths({ inputs: [['--input', opts.input]], outputs: [['--out', opts.out]] });
      const { lossCommand } = await import('../commands/loss-command.ts');
      const r = await lossCommand(opts);
      console.log(`${r.tokens} tokens: ${r.meanNll.toFixed(4)} nats/token`);
    });
}

function defineFinetune(program: Command): void {
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
    .addOption(seedOption(1))
    .option('--eval-every <n>', 'probe every n steps', integer('--eval-every'), 100)
    .option('--ckpt-every <n>', 'checkpoint every n steps', integer('--ckpt-every'), 25)
    .option('--minutes <x>', 'stop (checkpoint and export) after this wall time', number('--minutes'), 1e9)
    .option('--threads <n>', 'threads for the large matmuls, or auto (one per core); any count gives the same bytes')
    .option('--resume', 'continue from the checkpoint in --work', false)
    .option('--no-export', 'skip the export')
    .addOption(quietOption('no progress bar (log lines instead)').default(false))
    .option('--rebuild <command>', 'the rebuild command the model card shows (default: this command line)')
    .action(async (opts) => {
      checkCommandPaths({ inputs: [['--data', opts.data], ['--corpus', opts.corpus]], outputs: [['--out', opts.out], ['--work', opts.work]] });
      const { finetune } = await import('../../train/finetune.ts');
      const rebuild = opts.rebuild ?? `npx toolformer finetune ${process.argv.slice(3).filter((a) => a !== '--resume').join(' ')}`;
      await finetune({ ...opts, rebuild });
    });
}

function defineConvert(program: Command): void {
  program
    .command('convert')
    .description('write a model folder this project makes (GPT-2, Llama, Qwen2; float32 onnx/model.onnx) as one GGUF file for llama.cpp, tokenizer inside')
    .argument('<model>', 'Hugging Face ONNX causal-LM directory')
    .requiredOption('--to <format>', 'output format: gguf')
    .option('--dtype <type>', 'matrix storage: f32, f16 or q8_0 (norms, biases and position embeddings stay f32)', 'f32')
    .option('--out <file>', 'the .gguf file (default out/gguf/<model folder>-<dtype>.gguf)')
    .action(async (model: string, opts: { to: string; dtype: string; out?: string }) => {
      checkCommandPaths({ inputs: [['convert', model]], outputs: [['--out', opts.out]], directories: true });
      const { convertCommand } = await import('../commands/convert-command.ts');
      console.log(await convertCommand(model, opts));
    });
}
