/**
 * The probes' verdicts (sampling-probe.ts) are a deterministic function of the model, the seed, the tools and the
 * settings the probes read, so a run may take an earlier run's verdicts instead of sampling again (issue 28 item 2:
 * the probes were ≈ 28 % of a 135M run and a third of the bundled model's). This is the pure half: what the cache
 * key is made of, and the check a cached record must pass before it is trusted. The Node edge
 * (node/run/probe-cache.ts) hashes the key, picks the cache directory, reads and writes the files.
 */
import type { AnnotateConfig } from '../config.ts';
import type { ProbeCacheNote, ProbeOutcome } from '../run-plan.ts';

export type { ProbeCacheNote };
import { BARE_MIN_PARSE_RATE, BARE_PROBE_SAMPLES } from '../sampling/lm-context.ts';
import type { SamplingCounts } from '../sampling/sampling-gate.ts';
import type { ToolSpec } from '../tools/spec.ts';

/**
 * Bump when the probes change what they count for the same inputs (sampling-probe.ts, sample-calls.ts, the parse
 * check): every cached verdict of an older version is then a miss. 2: a sample stops at an id its tokenizer lacks
 * (ort-decoder.ts; models whose vocabulary is padded past the tokenizer).
 */
export const PROBE_VERSION = 2;

/** A cache file larger than this is not read (a verdict is a few hundred bytes per tool). */
export const MAX_PROBE_CACHE_BYTES = 1024 * 1024;

/** What identifies the model the probes sampled from (the Node edge measures it). */
export interface ProbeModelIdentity {
  /** SHA-256 over the files the model is loaded from (config, tokenizer, the dtype's ONNX file and its data). */
  digest: string;
  dtype: string;
  /** Library versions that can move a sampled token (onnxruntime, the tokenizer). */
  versions: Record<string, string>;
}

/** A prompt variant as text: the function applied to a marker, so two prompts that differ anywhere differ here. */
const INPUT_MARKER = '\u0000input\u0000';

/**
 * Everything the verdicts depend on, as one JSON-able value (hashed into the key): the probe's version and
 * constants, the model, the seed, the `--lm-context` flag (auto runs the bare-text probe, prompt does not), the
 * settings the probes read, and each probed tool's prompt variants, worked examples and m.
 */
export function probeKeyInputs(config: AnnotateConfig, specOf: (tool: string) => ToolSpec | undefined, lmContextFlag: string, model: ProbeModelIdentity) {
  return {
    probeVersion: PROBE_VERSION,
    bare: { samples: BARE_PROBE_SAMPLES, minParseRate: BARE_MIN_PARSE_RATE },
    model,
    seed: config.seed,
    lmContextFlag,
    settings: {
      lmContext: config.lmContext,
      lmProposals: config.lmProposals,
      samplingGate: config.samplingGate,
      windowTokens: config.windowTokens, // not batchSize: the probe runs no scoring pass, and samples in fixed groups
      maxSampleTokens: config.maxSampleTokens,
      temperature: config.temperature,
      topK: config.topK,
      // Another execution provider rounds differently, so a sampled token may differ (cpu, the default, adds nothing).
      ...(config.device ? { device: config.device } : {}),
    },
    tools: config.tools.map((name) => {
      const spec = specOf(name);
      return {
        name,
        m: config.thresholds[name]?.m ?? null,
        prompt: spec ? spec.prompt.variants.map((render) => render(INPUT_MARKER)) : null,
        examples: spec?.examples ?? [],
      };
    }),
  };
}

/** The file's content for `verdicts` under `key`. */
export function probeCacheRecord(key: string, verdicts: ProbeOutcome): string {
  return JSON.stringify({ probeVersion: PROBE_VERSION, key, verdicts }) + '\n';
}

const isCounts = (x: unknown): x is SamplingCounts => {
  const c = x as SamplingCounts;
  return !!c && typeof c === 'object' && Number.isInteger(c.samples) && Number.isInteger(c.parsed) && c.samples >= 0 && c.parsed >= 0 && c.parsed <= c.samples;
};

/** A tool → counts map whose tools are all among the run's (a verdict for another tool list is not this run's). */
function countsProblem(x: unknown, tools: readonly string[]): string | null {
  if (x === undefined) return null;
  if (!x || typeof x !== 'object' || Array.isArray(x)) return 'counts are not an object';
  for (const [tool, counts] of Object.entries(x)) {
    if (!tools.includes(tool)) return `counts for ${JSON.stringify(tool).slice(0, 40)}, not one of the run's tools`;
    if (!isCounts(counts)) return `${tool}'s counts are not {samples, parsed} with 0 ≤ parsed ≤ samples`;
  }
  return null;
}

/**
 * A cached record's verdicts, or why it is not trusted (one short phrase): not JSON, another probe version or key,
 * or verdicts of the wrong shape. `tools`: the run's tools.
 */
export function readProbeCacheRecord(text: string, key: string, tools: readonly string[]): ProbeOutcome | string {
  let record: { probeVersion?: unknown; key?: unknown; verdicts?: Partial<ProbeOutcome> };
  try {
    record = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!record || typeof record !== 'object') return 'not a record';
  if (record.probeVersion !== PROBE_VERSION) return `probe version ${JSON.stringify(record.probeVersion)}, not ${PROBE_VERSION}`;
  if (record.key !== key) return 'written for another key';
  const v = record.verdicts;
  if (!v || typeof v !== 'object') return 'no verdicts';
  if (v.lmContext !== 'prompt' && v.lmContext !== 'bare') return 'lmContext is neither prompt nor bare';
  const problem = countsProblem(v.bareProbe, tools) ?? countsProblem(v.samplingProbe, tools);
  if (problem) return problem;
  return {
    lmContext: v.lmContext,
    ...(v.bareProbe && { bareProbe: v.bareProbe }),
    ...(v.samplingProbe && { samplingProbe: v.samplingProbe }),
  };
}
