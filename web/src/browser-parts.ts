/**
 * The pipeline's parts (pipeline/core/stages.ts `PipelineParts`) for the browser: the same core tools, prompts and
 * stages as the CLI, with browser-side pieces passed in — the onnxruntime-web LM, a QA knowledge base fetched from
 * the app's origin, and no translation engine (Translate answers with its "not installed" error result, shown as is).
 *
 * Tool execution: bounded concurrency and a per-call timeout, like the Node executor; a tool that throws or hangs
 * becomes an error result.
 */
import PQueue from 'p-queue';
import type { Doc } from '../../pipeline/core/document.ts';
import type { CausalLM } from '../../pipeline/core/lm.ts';
import { DEFAULT_PROMPTS, type ToolPrompt } from '../../pipeline/core/prompts.ts';
import type { PipelineParts } from '../../pipeline/core/stages.ts';
import { Calculator } from '../../pipeline/core/tools/calculator.ts';
import { Calendar } from '../../pipeline/core/tools/calendar.ts';
import { createQA, type KnowledgeBase } from '../../pipeline/core/tools/qa.ts';
import type { Tool, ToolCall, ToolResult } from '../../pipeline/core/tools/tool.ts';
import { createTranslate, type LanguageDetector } from '../../pipeline/core/tools/translate.ts';

export interface BrowserPartsOptions {
  lm: CausalLM;
  kb: KnowledgeBase;
  detector: LanguageDetector;
  /** @default 4 */
  concurrency?: number;
  /** @default 2000 */
  timeoutMs?: number;
}

/** The browser's tools, keyed by the name written in call text. */
export function browserTools(kb: KnowledgeBase, detector: LanguageDetector): Map<string, Tool> {
  const tools: Tool[] = [
    new Calculator(),
    createQA(kb),
    new Calendar(),
    createTranslate({ detector, installHint: 'the web app has no translation engine; run the CLI with Apertium installed' }),
  ];
  return new Map(tools.map((t) => [t.name, t]));
}

/** The prompt for a tool: by its name, or by the paper's "Translate" for the MT tool. */
function promptsFor(tools: Map<string, Tool>): Record<string, ToolPrompt> {
  const out: Record<string, ToolPrompt> = {};
  for (const name of tools.keys()) {
    const p = DEFAULT_PROMPTS[name] ?? (name === 'MT' ? DEFAULT_PROMPTS.Translate : undefined);
    if (p) out[name] = p;
  }
  return out;
}

function withTimeout(run: (signal: AbortSignal) => Promise<ToolResult>, ms: number): Promise<ToolResult> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ ok: false, error: `timed out after ${ms} ms` });
    }, ms);
  });
  const result = run(controller.signal).catch((e: unknown): ToolResult => ({ ok: false, error: `tool threw: ${String(e)}` }));
  return Promise.race([result, timeout]).finally(() => clearTimeout(timer));
}

/** A call the user typed, proposed at its offset beside the pipeline's proposals (set per explorer run). */
export interface OwnCall {
  tool: string;
  input: string;
  at: number;
}

export type BrowserParts = PipelineParts & { tools: Map<string, Tool>; setOwn(own: OwnCall | null): void };

export function browserParts(options: BrowserPartsOptions): BrowserParts {
  const tools = browserTools(options.kb, options.detector);
  const queue = new PQueue({ concurrency: options.concurrency ?? 4 });
  const timeoutMs = options.timeoutMs ?? 2000;
  let own: OwnCall | null = null;
  return {
    tools,
    setOwn(call) {
      own = call;
    },
    lm: options.lm,
    tool: (name) => tools.get(name),
    prompts: promptsFor(tools),
    async execute(calls: readonly { call: ToolCall; doc: Doc }[]) {
      return Promise.all(
        calls.map(({ call, doc }) =>
          queue.add(() => {
            const tool = tools.get(call.tool);
            if (!tool) return Promise.resolve<ToolResult>({ ok: false, error: `unknown tool ${call.tool}` });
            return withTimeout((signal) => tool.run(call.input, { doc: { id: doc.id, date: doc.date }, signal }), timeoutMs);
          }) as Promise<ToolResult>,
        ),
      );
    },
    // Until the core's pre-filters, heuristic positions, proposers and leakage guard land, the explorer runs the
    // LM path plus the user's own call: every document passes, positions come from p_i, calls from LM sampling.
    prefilter: () => ({ pass: true }),
    heuristicPositions: (_text, tool) => (own && own.tool === tool ? [own.at] : []),
    propose: (tool, _prefix, _doc, at) => (own && own.tool === tool && own.at === at ? [{ tool, input: own.input }] : []),
    leaks: () => null,
  };
}
