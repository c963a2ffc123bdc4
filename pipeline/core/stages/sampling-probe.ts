import type { AnnotateConfig } from '../config.ts';
import { BARE_PROBE_SAMPLES, BARE_PROMPT } from '../sampling/lm-context.ts';
import { positionScores } from '../sampling/positions.ts';
import type { ToolPrompt } from '../tools/prompts.ts';
import { sampleCalls } from '../sampling/sample-calls.ts';
import type { SamplingCounts } from '../sampling/sampling-gate.ts';
import { type PipelineParts, seedFor } from './stages.ts';

/**
 * The probe: for each of the run's tools that would be sampled and has worked examples, `gate.minSamples` calls
 * spread over its examples (sampled as in a run: the tool's prompt, the text up to the call, `" ["`), with seeds from
 * the run's seed. Returns counts per probed tool; `{}` without a gate or without LM proposals.
 */
export async function probeSampling(parts: PipelineParts, config: AnnotateConfig): Promise<Record<string, SamplingCounts>> {
  if (!config.samplingGate || !config.lmProposals) return {};
  return probe(parts, config, config.samplingGate.minSamples, (prompt) => prompt, 'probe');
}

/**
 * The bare-text probe (lm-context.ts): the same examples and counts, but every call sampled from the text before it
 * and `" ["` alone, with no prompt — does the model write calls on its own? `{}` without LM proposals.
 */
export async function probeBare(parts: PipelineParts, config: AnnotateConfig): Promise<Record<string, SamplingCounts>> {
  if (!config.lmProposals) return {};
  return probe(parts, config, BARE_PROBE_SAMPLES, () => BARE_PROMPT, 'bare-probe');
}

async function probe(
  parts: PipelineParts,
  config: AnnotateConfig,
  minSamples: number,
  promptFor: (toolPrompt: ToolPrompt) => ToolPrompt,
  seedTag: string,
): Promise<Record<string, SamplingCounts>> {
  const out: Record<string, SamplingCounts> = {};
  for (const tool of config.tools) {
    const spec = parts.registry.get(tool);
    const examples = spec?.examples ?? [];
    if (!spec || examples.length === 0 || config.thresholds[tool].m <= 0) continue;
    const prompt = promptFor(spec.prompt);
    const counts: SamplingCounts = { samples: 0, parsed: 0 };
    for (let i = 0; counts.samples < minSamples; i++) {
      const example = examples[i % examples.length];
      const scores = await positionScores(parts.lm, example.text, prompt, {
        windowTokens: config.windowTokens,
        batchSize: config.batchSize,
        reserveTokens: config.maxSampleTokens + 1,
        withP: false, // the probe samples at the example's call, whatever p_i is there
      });
      // The token the call stands before (its offset is the call's, or the first after it).
      const token = Math.max(0, scores.offsets.findIndex((o) => o >= example.at));
      const m = Math.min(minSamples - counts.samples, Math.ceil(minSamples / examples.length));
      const samples = await sampleCalls(parts.lm, prompt, scores, Math.min(token, scores.p.length - 1), {
        m,
        maxNewTokens: config.maxSampleTokens,
        temperature: config.temperature,
        topK: config.topK,
        seed: seedFor(config.seed, seedTag, tool, i),
        stopUnparsable: true, // only `parsed` is counted, and a text that cannot parse never will
      });
      counts.samples += samples.length;
      counts.parsed += samples.filter((s) => s.call).length;
      if (samples.length === 0) break; // a backend that returns nothing: no verdict
    }
    out[tool] = counts;
  }
  return out;
}
