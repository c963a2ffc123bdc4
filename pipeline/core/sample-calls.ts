import { parseCall } from './call-syntax.ts';
import type { CausalLM } from './lm.ts';
import { type PositionScores, promptedPrefix } from './positions.ts';
import type { ToolPrompt } from './prompts.ts';
import type { ToolCall } from './tools/tool.ts';

/**
 * Sampling API calls (paper §2): at a position i, sample up to m calls from the LM given
 * [P(x), x_{1:i−1}, " ["] with "]" as the end of sequence. A call that never closes is dropped with a
 * reason, as is one that does not parse; both are kept in the run's record of rejected calls.
 */
export interface SampledCall {
  /** The sampled text between " [" and "]". */
  raw: string;
  call?: ToolCall;
  /** Why the sample is not a call: "unclosed_call" or "parse_error: …". */
  error?: string;
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
  });
  return samples.map(({ text, stopped }) => {
    if (!stopped) return { raw: text, error: 'unclosed_call' };
    const parsed = parseCall(text);
    if (!parsed.ok) return { raw: text, error: `parse_error: ${parsed.error}` };
    return { raw: text, call: { tool: parsed.call.tool, input: parsed.call.input } };
  });
}
