/**
 * `npm run train:model -- [options]`: train the bundled model from scratch (or resume) and export it. The steps are
 * in from-scratch.ts; the loop, checkpoint and resume in loop.ts (pipeline/train/README.md).
 */
import { Command } from 'commander';
import { trainModel, type TrainModelOptions } from './from-scratch.ts';

const started = Date.now();
const program = new Command()
  .option('--corpus <paths...>', 'JSONL files with a "text" field', ['corpus/sotu.jsonl', 'corpus/factbook.jsonl'])
  .option('--work <dir>', 'checkpoints, tokenizer, log', '.cache/train')
  .option('--out <dir>', 'exported model', 'models/default')
  .option('--vocab <n>', 'vocabulary size', '1024')
  .option('--no-digit-pairs', 'tokenizer: let digits merge as ordinary BPE (default: tokenizer.ts digitPairs)')
  .option('--layers <n>', '', '2').option('--embd <n>', '', '256').option('--heads <n>', '', '4')
  .option('--seq <n>', 'training sequence length (= n_positions)', '128')
  .option('--batch <n>', 'sequences per step', '16')
  .option('--steps <n>', 'total optimiser steps (sets the cosine schedule)', '1800')
  .option('--minutes <n>', 'stop (checkpoint and export) after this wall time in this process', '1e9')
  .option('--lr <x>', 'peak learning rate', '6e-4')
  .option('--warmup <n>', 'warmup steps', '100')
  .option('--protect <x>', 'learning-rate multiplier on the constructed circuit (construct.ts constructedLrScale)', '0.1')
  .option('--init <kind>', 'construct | random', 'construct')
  .option('--seed <n>', '', '1')
  .option('--eval-every <n>', '', '100')
  .option('--ckpt-every <n>', '', '25')
  .option('--threads <n>', 'threads for the large matmuls, or auto (one per core); any count gives the same bytes')
  .option('--resume', 'continue from <work>/checkpoint.bin', false)
  .option('--no-export', 'skip the ONNX export');
program.parse();
await trainModel(program.opts<TrainModelOptions>(), {}, started);
