import PQueue from 'p-queue';
import type { Doc } from '../document.ts';
import { RUN_DEFAULTS } from '../run-defaults.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { maxArgumentLength } from '../tools/spec.ts';
import type { ToolCall, ToolResult } from '../tools/tool.ts';

/**
 * Runs ToolCalls through the registry with bounded concurrency (p-queue) and a per-call timeout. Never throws:
 * an unknown tool, an over-long input, arguments that fail the tool's JSON Schema, a tool that throws, hangs or returns garbage all become
 * `{ ok: false, error, ms }`. `executeAll` returns results in input order whatever the concurrency, so outputs
 * are deterministic; only `ms` (wall time) varies between runs — keep it out of files that must be identical.
 *
 * A timeout aborts `context.signal` and stops waiting; it cannot stop a synchronous CPU-bound tool mid-way,
 * which is why the Calculator is bounded by construction (caps before evaluation).
 */

export type ExecutionResult = ToolResult & {
  /** Wall time of the call, milliseconds (rounded to 0.1). */
  ms: number;
};

export interface ExecuteOptions {
  /** Calls in flight at once. @default RUN_DEFAULTS.toolConcurrency (4) */
  concurrency?: number;
  /** Per call, ms. @default RUN_DEFAULTS.toolTimeoutMs (30 000), the CLI's and the web app's */
  timeoutMs?: number;
  /** Characters, on top of the longest argument each tool's schema allows. @default 1000 */
  maxInputLength?: number;
  /** Characters; a longer result is an error (it would swamp the LM context). @default 1000 */
  maxResultLength?: number;
  /**
   * Results remembered per (document id, date, tool, input): the same call proposed at 20 positions of a document
   * runs once (an Apertium call is a ~0.3 s process). Timeouts and thrown errors are never remembered. 0 disables.
   * @default 10000
   */
  cacheSize?: number;
}

export interface CallToExecute {
  call: ToolCall;
  doc: Pick<Doc, 'id' | 'date'>;
}

export class ToolExecutor {
  private readonly queue: PQueue;
  private readonly timeoutMs: number;
  private readonly maxInputLength: number;
  private readonly maxResultLength: number;
  private readonly cacheSize: number;
  /** Insertion-ordered: the oldest entry is evicted first. Holds in-flight promises, so duplicates never overlap. */
  private readonly cache = new Map<string, Promise<{ result: ExecutionResult; remember: boolean }>>();

  constructor(
    private readonly registry: ToolRegistry,
    options: ExecuteOptions = {},
  ) {
    this.queue = new PQueue({ concurrency: options.concurrency ?? RUN_DEFAULTS.toolConcurrency });
    this.timeoutMs = options.timeoutMs ?? RUN_DEFAULTS.toolTimeoutMs;
    this.maxInputLength = options.maxInputLength ?? 1000;
    this.maxResultLength = options.maxResultLength ?? 1000;
    this.cacheSize = options.cacheSize ?? 10_000;
  }

  /** All calls, results in input order. One shared queue: concurrency is bounded across concurrent batches too. */
  executeAll(calls: readonly CallToExecute[]): Promise<ExecutionResult[]> {
    return Promise.all(calls.map(({ call, doc }) => this.execute(call, doc)));
  }

  /**
   * One call, queued (or answered from the cache). `signal`: the caller's (an MCP client that cancels or leaves); its
   * abort stops the call as a timeout does (the tool's own signal aborts), and is honoured on uncached calls only.
   */
  async execute(call: ToolCall, doc: Pick<Doc, 'id' | 'date'>, signal?: AbortSignal): Promise<ExecutionResult> {
    const cacheable = this.cacheSize > 0 && typeof call?.input === 'string' && call.input.length <= this.maxInputLength;
    if (!cacheable) return (await this.enqueue(call, doc, signal)).result; // over-long inputs never become cache keys
    const key = JSON.stringify([doc?.id, doc?.date, call?.tool, call?.input]);
    const cached = this.cache.get(key);
    if (cached) return { ...(await cached).result, ms: 0 };
    const pending = this.enqueue(call, doc);
    this.cache.set(key, pending);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    const { result, remember } = await pending;
    if (!remember) this.cache.delete(key);
    return result;
  }

  private async enqueue(call: ToolCall, doc: Pick<Doc, 'id' | 'date'>, signal?: AbortSignal): Promise<{ result: ExecutionResult; remember: boolean }> {
    const outcome = await this.queue.add(() => this.runNow(call, doc, signal));
    return outcome ?? { result: { ok: false, error: 'not executed', ms: 0 }, remember: false }; // p-queue types allow void
  }

  /** `remember`: the outcome is the tool's own answer (not a timeout or a crash), so it may be cached. */
  private async runNow(call: ToolCall, doc: Pick<Doc, 'id' | 'date'>, signal?: AbortSignal): Promise<{ result: ExecutionResult; remember: boolean }> {
    const start = performance.now();
    let remember = true;
    const done = (result: ToolResult) => ({ result: { ...result, ms: Math.round((performance.now() - start) * 10) / 10 }, remember });

    if (typeof call?.tool !== 'string' || typeof call.input !== 'string') return done(fail('malformed call'));
    if (signal?.aborted) return done(fail('cancelled by its caller before it ran'));
    const resolved = this.registry.resolve(call.tool);
    if (!resolved.ok) return done(fail(resolved.error));
    const tool = resolved.tool;
    const limit = Math.min(this.maxInputLength, tool.argument.property === undefined ? this.maxInputLength : maxArgumentLength(tool));
    if (call.input.length > limit) return done(fail(`input longer than ${limit} characters`));
    // Validated against the tool's JSON Schema before dispatch; a failure never reaches the tool.
    const invalid = this.registry.schemaError(tool.name, call.input);
    if (invalid) return done({ ok: false, error: `schema_error: ${invalid}`, schemaError: invalid });

    try {
      // An engine that loads on first use (mathjs, the language detector's data) loads before the clock starts.
      await tool.load?.();
    } catch (error) {
      remember = false;
      return done(fail(`${tool.name} failed: ${describe(error)}`));
    }
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onCallerAbort = () => {};
    const timeout = new Promise<ToolResult>((resolve) => {
      const stop = (why: string) => {
        remember = false;
        controller.abort();
        resolve(fail(why));
      };
      timer = setTimeout(() => stop(`timed out after ${this.timeoutMs} ms`), this.timeoutMs);
      onCallerAbort = () => stop('cancelled by its caller');
      signal?.addEventListener('abort', onCallerAbort, { once: true });
    });
    try {
      // Promise.resolve().then: a tool that throws synchronously is caught like one that rejects.
      const running = Promise.resolve().then(() => tool.run(call.input, { doc, signal: controller.signal }));
      const raw = await Promise.race([running, timeout]);
      return done(this.check(raw));
    } catch (error) {
      remember = false;
      return done(fail(`${tool.name} failed: ${describe(error)}`));
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  /** A tool's return value is untrusted too: only a well-formed, bounded ToolResult passes. */
  private check(raw: unknown): ToolResult {
    if (raw === null || typeof raw !== 'object') return fail('tool returned an invalid result');
    const r = raw as Record<string, unknown>;
    if (r.ok === true && typeof r.value === 'string') {
      if (r.value.length > this.maxResultLength) return fail(`result longer than ${this.maxResultLength} characters`);
      return { ok: true, value: r.value };
    }
    if (r.ok === false && typeof r.error === 'string') return fail(r.error.slice(0, 500));
    return fail('tool returned an invalid result');
  }
}

function fail(error: string): ToolResult {
  return { ok: false, error };
}

function describe(error: unknown): string {
  try {
    const message = error instanceof Error ? error.message : String(error);
    return String(message).slice(0, 200);
  } catch {
    return 'unprintable error'; // e.g. a thrown object whose toString throws
  }
}
