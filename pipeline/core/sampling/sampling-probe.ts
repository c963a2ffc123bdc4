import type { AnnotateConfig } from '../config.ts';
import { positionScores } from './positions.ts';
import { sampleCalls } from './sample-calls.ts';
import type { SamplingCounts } from './sampling-gate.ts';
import { type PipelineParts, seedFor } from '../stages/stages.ts';

/**
 * The probe: for each of the run's tools that would be sampled and has worked examples, `gate.minSamples` calls
 * spread over its examples (sampled as in a run: the tool's prompt, the text up to the call, `" ["`), with seeds from
 * the run's seed. Returns counts per probed tool; `{}` without a gate or without LM proposals.
 */
export async function probeSampling(parts: PipelineParts, config: AnnotateConfig): Promise<Record<string, SamplingCounts>> {
  const gate = config.samplingGate;
  const out: Record<string, SamplingCounts> = {};
  if (!gate || !config.lmProposals) return out;
  for (const tool of config.tools) {
    const spec = parts.registry.get(tool);
    const examples = spec?.examples ?? [];
    if (!spec || examples.length === 0 || config.thresholds[tool].m <= 0) continue;
    const counts: SamplingCounts = { samples: 0, parsed: 0 };
    for (let i = 0; counts.samples < gate.minSamples; i++) {
      const example = examples[i % examples.length];
      const scores = await positionScores(parts.lm, example.text, spec.prompt, {
        windowTokens: config.windowTokens,
        batchSize: config.batchSize,
        reserveTokens: config.maxSampleTokens + 1,
      });
      // The token the call stands before (its offset is the call's, or the first after it).
      const token = Math.max(0, scores.offsets.findIndex((o) => o >= example.at));
      const m = Math.min(gate.minSamples - counts.samples, Math.ceil(gate.minSamples / examples.length));
      const samples = await sampleCalls(parts.lm, spec.prompt, scores, Math.min(token, scores.p.length - 1), {
        m,
        maxNewTokens: config.maxSampleTokens,
        temperature: config.temperature,
        seed: seedFor(config.seed, 'probe', tool, i),
      });
      counts.samples += samples.length;
      counts.parsed += samples.filter((s) => s.call).length;
      if (samples.length === 0) break; // a backend that returns nothing: no verdict
    }
    out[tool] = counts;
  }
  return out;
}
