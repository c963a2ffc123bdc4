/**
 * The annotate run's settings that have a default, in one table: the config key, its default, and the CLI flag that
 * overrides it (none: not a flag). `defaultConfig` (default-config.ts), the CLI's options and help (node/cli/cli.ts), the tool
 * executor (stages/execute.ts) and the web app read their defaults from here, so they cannot disagree.
 * A leaf module: it imports nothing, so any layer may read it.
 */
export const RUN_SETTINGS = {
  seed: { default: 0, flag: '--seed' },
  /** Text tokens kept before a position when scoring. */
  contextTokens: { default: 96 },
  /** Text tokens per window when computing p_i. */
  windowTokens: { default: 96 },
  /**
   * The search budget per document, tokens. 8.7× the longest document of the bundled corpora (943 tokens, sotu.jsonl),
   * so none of them is cut. A document of adversarial text (about one token per character) is cut after ~8 KB;
   * English after ~32 KB.
   */
  maxDocTokens: { default: 8192, flag: '--max-doc-tokens' },
  /** Sequences per forward pass. */
  batchSize: { default: 16, flag: '--batch-size' },
  /** Longest call text e(c, r) that is scored, tokens. */
  maxCallTokens: { default: 96 },
  /** Longest call the LM may sample, tokens. */
  maxSampleTokens: { default: 32 },
  temperature: { default: 1 },
  /** Heuristic positions per tool. */
  heuristicPositions: { default: 10 },
  lmProposals: { default: true, flag: '--no-lm-proposals' },
  /** What LM positions and samples condition on before the bare-text probe decides (`--lm-context auto`). */
  lmContext: { default: 'prompt' as 'prompt' | 'bare', flag: '--lm-context' },
  programmatic: { default: true, flag: '--no-programmatic' },
  /** Top-k of LM sampling. */
  topK: { default: 40, flag: '--top-k' },
  /** The counterfactual control's margin, nats. */
  controlMargin: { default: 1, flag: '--control-margin' },
  /** Concurrent tool calls. */
  toolConcurrency: { default: 4, flag: '--concurrency' },
  /**
   * Milliseconds a tool call may run: a guard against a hung tool, not a latency budget. The timeout is wall time, so
   * a tight one makes runs differ: four Apertium calls at once (toolConcurrency) take 2.05 s on an idle 2-core machine
   * (0.5 CPU s each), so a 2 s limit turned Translate results into errors in one run and not the next. The CLI, the
   * web explorer and web generation all use this one.
   */
  toolTimeoutMs: { default: 30_000, flag: '--tool-timeout' },
  /**
   * Where a call sits when its losses are scored: `prefix`, before the whole window (the paper's footnote 3, for a model
   * that has never seen a call), or `inline`, at its position as x* writes it (scoring/inline-scoring.ts, for a model
   * finetuned on calls). config.json records it only when given.
   */
  callPlacement: { default: 'prefix' as CallPlacement, flag: '--call-placement' },
} as const;

/** Where a call sits when its losses are scored (RUN_SETTINGS.callPlacement, AnnotateConfig.callPlacement). */
export type CallPlacement = 'prefix' | 'inline';
export const CALL_PLACEMENTS: readonly CallPlacement[] = ['prefix', 'inline'];

type Settings = typeof RUN_SETTINGS;

/** The defaults alone: `RUN_DEFAULTS.toolTimeoutMs` is 30 000. */
export const RUN_DEFAULTS = Object.fromEntries(Object.entries(RUN_SETTINGS).map(([key, s]) => [key, s.default])) as {
  readonly [K in keyof Settings]: Settings[K]['default'];
};
