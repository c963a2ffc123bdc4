/**
 * Stop LM sampling for a tool whose samples do not parse (issue 10): a model that has never seen a call in the
 * middle of a text writes after `" ["` something that is almost never a call (the bundled model: 0 of 4,205), and
 * sampling m calls at k positions per document is most of a run's time. After `minSamples` samples under a tool's
 * prompt, if fewer than `minParseRate` of them parsed as a call, the run stops sampling for that tool (it says so
 * once); `--force-lm-sampling` keeps sampling. The decision reads counts that are checkpointed with the run's
 * stats, so a resumed run decides exactly as an uninterrupted one.
 */
export interface SamplingCounts {
  /** Calls sampled under the tool's prompt. */
  samples: number;
  /** Of those, how many parsed as a call (of any tool). */
  parsed: number;
}

export interface SamplingGate {
  /** Samples seen before deciding. @default 100 */
  minSamples: number;
  /** Parse rate below which sampling stops. @default 0.02 */
  minParseRate: number;
}

export const DEFAULT_SAMPLING_GATE: SamplingGate = { minSamples: 100, minParseRate: 0.02 };

/** Whether to go on sampling for a tool with these counts so far. */
export function keepSampling(counts: SamplingCounts | undefined, gate: SamplingGate | null): boolean {
  if (!gate || !counts || counts.samples < gate.minSamples) return true;
  return counts.parsed / counts.samples >= gate.minParseRate;
}

/** Parse rate rounded to 1e-4 (0 when nothing was sampled), as stats.json reports it. */
export function parseRate(counts: SamplingCounts): number {
  return counts.samples === 0 ? 0 : Math.round((counts.parsed / counts.samples) * 1e4) / 1e4;
}
