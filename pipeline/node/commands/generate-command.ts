/**
 * `toolformer generate`: the paper's inference with live tools (pipeline/core/generate/generate.ts) from the command line.
 *
 *   toolformer generate "<prompt>" [--model dir] [--no-tools] [--max-new-tokens n] [--json]   streams the text
 *   toolformer generate --input prompts.jsonl --out results.jsonl [same flags]                one result per line
 *
 * Tools are the pipeline's (registry dispatch, Apertium for Translate when installed) with annotate's limits
 * (defaultConfig's toolTimeoutMs and toolConcurrency).
 */
import { createWriteStream } from 'node:fs';
import { jsonLinesSync } from '../../io/jsonl.ts';
import { defaultConfig } from '../../core/default-config.ts';
import { ToolExecutor } from '../../core/stages/execute.ts';
import { generate as generateWithTools, type GenerateOptions, type Generation } from '../../core/generate/generate.ts';
import type { Device } from '../../core/lm/devices.ts';
import type { CausalLM } from '../../core/lm/lm.ts';
import { backendFlags, type BackendFlags } from '../cli/cli-options.ts';
import { backendFor, openLM, type LoadedLM } from '../model/lm-backends/registry.ts';
import type { OrtCausalLM } from '../../core/lm/ort-lm.ts';
import { TOOL_SPECS, ToolRegistry } from '../../core/tools/registry.ts';
import { createApertiumEngine } from '../tools/apertium.ts';
import { loadModel } from '../model/load-model.ts';
import { nodeResources } from '../tools/parts.ts';
import { generateWithToolkens, type ToolModeKind } from '../../core/toolkens/generate.ts';
import type { Toolkens } from '../../core/toolkens/file.ts';
import { readToolkens } from './toolkens-command.ts';

export interface GenerateCommandOptions extends BackendFlags {
  model: string;
  tools: boolean;
  maxNewTokens: number;
  topK: number;
  maxCalls: number;
  temperature: number;
  seed: number;
  date?: string;
  json?: boolean;
  input?: string;
  out?: string;
  /** ToolkenGPT toolkens (toolformer toolkens train): calls come from toolkens instead of " [". */
  toolkens?: string;
  toolkenBias?: number;
  toolkenMode?: ToolModeKind;
  /** Where the LM runs (`--device`). @default "cpu" */
  device?: Device;
}

/** The model generate and eval decode with, and the toolkens with the ONNX model they read, when --toolkens is given. */
export interface DecodingModel {
  lm: LoadedLM;
  toolkens: { toolkens: Toolkens; model: OrtCausalLM & CausalLM } | null;
}

/**
 * Opens `--model` for decoding. Plain generation runs on any LM backend that has a KV-cache decoder (an ONNX folder, a
 * .gguf through llama.cpp, auto:…; a served model has none, which core/generate says in one line); toolkens read an
 * ONNX model's hidden states in this process, so with --toolkens any other backend is refused in one line before
 * anything loads.
 */
export async function openDecodingModel(o: { model: string; device?: Device; toolkens?: string } & BackendFlags): Promise<DecodingModel> {
  if (o.toolkens === undefined) return { lm: await openLM(o.model, { device: o.device, ...backendFlags(o) }), toolkens: null };
  const backend = backendFor(o.model);
  if (backend.name !== 'onnx') {
    throw new Error(`--toolkens reads an ONNX model's hidden states in this process; ${o.model} runs on the ${backend.name} backend (pass an ONNX folder as --model)`);
  }
  const toolkens = await readToolkens(o.toolkens, o.model);
  const model = await loadModel(o.model, { device: o.device, lm: { hiddenStates: true } });
  return { lm: model, toolkens: { toolkens, model } };
}

/** The default tools behind an executor with annotate's limits (the same timeout and concurrency as a run). */
export async function createNodeExecutor(): Promise<ToolExecutor> {
  const registry = new ToolRegistry(TOOL_SPECS, { ...nodeResources(), translationEngine: await createApertiumEngine() });
  const { toolTimeoutMs, toolConcurrency } = defaultConfig();
  return new ToolExecutor(registry, { timeoutMs: toolTimeoutMs, concurrency: toolConcurrency });
}

export function toRecord(g: Generation): { prompt: string; text: string; calls: { tool: string; input: string; result?: string; error?: string }[] } {
  return { prompt: g.prompt, text: g.text, calls: g.calls.map(({ tool, input, result, error }) => ({ tool, input, ...(result !== undefined ? { result } : {}), ...(error ? { error } : {}) })) };
}

export async function generateCommand(prompt: string | undefined, o: GenerateCommandOptions): Promise<void> {
  if ((prompt === undefined) === (o.input === undefined)) throw new Error('generate: pass a prompt or --input prompts.jsonl (not both)');
  if (o.input !== undefined && o.out === undefined) throw new Error('generate: --input needs --out results.jsonl');
  const { lm, toolkens: tk } = await openDecodingModel(o);
  const executor = o.tools ? await createNodeExecutor() : null;
  const base: GenerateOptions = {
    tools: o.tools, maxNewTokens: o.maxNewTokens, topK: o.topK, maxCalls: o.maxCalls, temperature: o.temperature, seed: o.seed,
  };
  const specs = new Map(TOOL_SPECS.map((s) => [s.name, s]));
  const generate = (text: string, more: Pick<GenerateOptions, 'doc' | 'onText'>): Promise<Generation> =>
    tk && executor
      ? generateWithToolkens(tk.model, executor, text, { toolkens: tk.toolkens, specs, mode: o.toolkenMode, bias: o.toolkenBias, maxNewTokens: o.maxNewTokens, maxCalls: o.maxCalls, ...more })
      : generateWithTools(lm, executor, text, { ...base, ...more });
  if (prompt !== undefined) {
    const stream = !o.json;
    if (stream) process.stdout.write(prompt);
    const g = await generate(prompt, {
      doc: { id: 'cli', date: o.date },
      onText: stream ? (p) => process.stdout.write(p.text) : undefined,
    });
    if (stream) process.stdout.write('\n');
    else console.log(JSON.stringify(toRecord(g)));
    return;
  }
  const out = createWriteStream(o.out!);
  let bad = 0;
  let written = 0;
  // Streamed and capped (io/jsonl.ts): an over-long line or a NUL run is a bad line, never a string.
  for (const item of jsonLinesSync<{ id?: unknown; prompt?: unknown; date?: unknown }>(o.input!, `--input ${o.input}`)) {
    const n = item.line;
    if ('reason' in item) {
      bad++;
      console.error(`${o.input}:${n}: ${item.reason}`);
      continue;
    }
    const rec = item.value;
    if (rec === null || typeof rec !== 'object' || typeof rec.prompt !== 'string' || rec.prompt === '') {
      bad++;
      console.error(`${o.input}:${n}: expected {"id": …, "prompt": "<non-empty string>"}`);
      continue;
    }
    try {
      const g = await generate(rec.prompt, { doc: { id: String(rec.id ?? n), date: typeof rec.date === 'string' ? rec.date : o.date } });
      out.write(JSON.stringify({ id: rec.id ?? n, ...toRecord(g) }) + '\n');
      written++;
    } catch (error) {
      bad++;
      console.error(`${o.input}:${n}: ${(error as Error).message}`);
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  console.error(`generate: ${written} results → ${o.out}${bad ? `, ${bad} bad lines (above)` : ''}`);
  if (written === 0 && bad > 0) process.exitCode = 1;
}
