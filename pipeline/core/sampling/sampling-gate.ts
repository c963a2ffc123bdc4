/**
 * Do not sample calls from a model that cannot write them (issue 10). A model that has never seen a call in the
 * middle of a text writes after `" ["` something that is almost never a call (the bundled model: 0 of 4,205), and
 * sampling m calls at k positions per document is most of a run's time.
 *
 * The decision is made once, before the run, by a probe: `minSamples` calls sampled under each tool's prompt at the
 * call positions of its worked examples (ToolSpec.examples). A tool whose probe samples parse less than
 * `minParseRate` of the time is not LM-sampled in the run (its programmatic proposer still runs). The probe's counts
 * are part of the run's config (config.json), so every process of a run — `--workers`, `--shard`, `--queue`, a
 * `--resume` — decides alike, and the files stay byte-identical whatever the split. `--force-lm-sampling` skips the
 * probe. A tool without examples is always sampled.
 */
export interface SamplingCounts {
  /** Calls sampled under the tool's prompt. */
  samples: number;
  /** Of those, how many parsed as a call (of any tool). */
  parsed: number;
}

export interface SamplingGate {
  /** Probe samples per tool. @default 100 */
  minSamples: number;
  /** Parse rate below which the run does not sample the tool. @default 0.02 */
  minParseRate: number;
}

export const DEFAULT_SAMPLING_GATE: SamplingGate = { minSamples: 100, minParseRate: 0.02 };

/** Whether to sample calls for a tool whose probe gave these counts (no probe or no gate: yes). */
export function keepSampling(counts: SamplingCounts | undefined, gate: SamplingGate | null): boolean {
  if (!gate || !counts || counts.samples < gate.minSamples) return true;
  return counts.parsed / counts.samples >= gate.minParseRate;
}

/** Parse rate rounded to 1e-4 (0 when nothing was sampled), as stats.json reports it. */
export function parseRate(counts: SamplingCounts): number {
  return counts.samples === 0 ? 0 : Math.round((counts.parsed / counts.samples) * 1e4) / 1e4;
}

/** The tools a probe turned off, as one line each for the terminal. */
export function probeNotices(probe: Record<string, SamplingCounts>, gate: SamplingGate | null): string[] {
  return Object.entries(probe)
    .filter(([, counts]) => !keepSampling(counts, gate))
    .map(([tool, c]) => `${tool}: ${c.parsed} of ${c.samples} calls sampled at its worked examples parsed; no LM sampling for ${tool} in this run (--force-lm-sampling samples anyway)`);
}
