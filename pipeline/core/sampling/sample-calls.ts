import { canStillParse, parseCall } from '../call-syntax.ts';
import type { Outcome } from '../candidates.ts';
import type { CausalLM } from '../lm/lm.ts';
import { type PositionScores, promptedPrefix } from './positions.ts';
import type { ToolPrompt } from '../tools/prompts.ts';
import type { ToolCall } from '../tools/tool.ts';

/**
 * Sampling API calls (paper §2): at a position i, sample up to m calls from the LM given
 * [P(x), x_{1:i−1}, " ["] with "]" as the end of sequence. A call that never closes is dropped with a
 * reason, as is one that does not parse; both are kept in the run's record of rejected calls.
 *
 * A model finetuned on C* writes the arrow and a (made-up) result itself, `QA("…") -> Lima]`, and a long result can
 * run past the token cap before its "]". As at inference (paper §4, generate.ts), the call ends at "->": a sample
 * that did not close but holds "->" is read up to the arrow (the text before it is what a stop at "->" would give).
 * Measured on corpus/sample.jsonl with models/toolformer: 880 of 3,168 unclosed samples held a well-formed call
 * before "->".
 */
export interface SampledCall {
  /** The sampled text between " [" and "]". */
  raw: string;
  call?: ToolCall;
  /** Why the sample is not a call: the candidate's outcome, unclosed_call or parse_error. */
  rejected?: Extract<Outcome, { kind: 'unclosed_call' | 'parse_error' }>;
}

export interface SampleCallOptions {
  m: number;
  /** Longest call, in tokens. @default 32 */
  maxNewTokens?: number;
  /** @default 1 */
  temperature?: number;
  /** @default 40 */
  topK?: number;
  seed: number;
  /** Stop a sample as soon as it can no longer parse as a call (canStillParse): its outcome is the same, sooner. */
  stopUnparsable?: boolean;
}

export async function sampleCalls(
  lm: CausalLM,
  prompt: ToolPrompt,
  scores: PositionScores,
  token: number,
  options: SampleCallOptions,
): Promise<SampledCall[]> {
  const ids = [...promptedPrefix(lm, prompt, scores, token), ...lm.encode(' [')];
  const samples = await lm.sample(ids, {
    n: options.m,
    maxNewTokens: options.maxNewTokens ?? 32,
    stop: ']',
    temperature: options.temperature ?? 1,
    topK: options.topK ?? 40,
    seed: options.seed,
    ...(options.stopUnparsable && { alive: canStillParse }),
  });
  return samples.map(({ text, stopped }) => readSample(text, stopped));
}

/** One sample → a call or the reason it is none (`stopped`: the sample ended with "]"). */
export function readSample(text: string, stopped: boolean): SampledCall {
  const arrow = text.indexOf('->');
  if (!stopped && arrow < 0) return { raw: text, rejected: { kind: 'unclosed_call' } };
  const parsed = parseCall(stopped ? text : text.slice(0, arrow));
  if (!parsed.ok) return { raw: text, rejected: { kind: 'parse_error', detail: parsed.error } };
  return { raw: text, call: { tool: parsed.call.tool, input: parsed.call.input } };
}
