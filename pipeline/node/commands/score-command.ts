import { parseCall } from '../../core/call-syntax.ts';
import { hasCallOnly } from '../../core/candidates.ts';
import { defaultConfig } from '../../core/default-config.ts';
import { judge } from '../../core/scoring/judge.ts';
import { paperNames } from '../../core/scoring/losses.ts';
import type { AnnotateConfig, CallPlacement } from '../../core/config.ts';
import type { CausalLM } from '../../core/lm/lm.ts';
import { scorePositionsInline } from '../../core/scoring/inline-scoring.ts';
import { scorePositions } from '../../core/scoring/scoring.ts';
import { callText } from '../../core/stages/stages.ts';
import { positionBefore, positionBeforePhrase, wordAround } from '../../core/text/boundaries.ts';
import { callTokens, planWindow } from '../../core/scoring/window.ts';
import type { Device } from '../../core/lm/devices.ts';
import type { Dtype } from '../model/hf-cache.ts';
import { openLM } from '../model/lm-backends/registry.ts';
import { type BackendFlags, backendFlags } from '../cli/cli-options.ts';
import { createNodeParts } from '../tools/parts.ts';

export interface ScoreFlags extends BackendFlags {
  call: string;
  /** Character offset where the call goes (one of `at`, `before`). */
  at?: number;
  /** The call goes just before this word or phrase (its first whole-word occurrence), where the pipeline puts it. */
  before?: string;
  model: string;
  dtype?: Dtype;
  /** Where the LM runs. @default "cpu" */
  device?: Device;
  date?: string;
  /** Where the call sits when scored: before the window (the paper's) or at `at`. @default "prefix" */
  callPlacement?: CallPlacement;
}

/** `toolformer score`: execute one call and print L_a, L_b, L_c, usefulness and the verdict at the tool's τ_f. */
export async function scoreCommand(text: string, flags: ScoreFlags): Promise<void> {
  const at = callPosition(text, flags, (line) => console.error(`toolformer: ${line}`));
  const parsed = parseCall(flags.call);
  if (!parsed.ok) throw new Error(`cannot parse --call ${JSON.stringify(flags.call)}: ${parsed.error}`);
  const config = defaultConfig();
  // Before the model loads: a tool this command cannot run is named at once, with the ones it can.
  if (!config.tools.includes(parsed.call.tool)) throw new Error(`unknown tool "${parsed.call.tool}" in --call: the tools are ${config.tools.join(', ')}`);
  const lm = await openLM(flags.model, { dtype: flags.dtype, device: flags.device, ...backendFlags(flags) });
  const { texts, window, losses, tauF, inline } = await scoreCall(lm, config, text, at, parsed.call, flags);
  const v = judge(losses, tauF);
  console.log(`text:   ${text.slice(0, at)}⟨${texts.withResult}⟩${text.slice(at)}${inline ? ' (scored inline)' : ''}`);
  // The score stage plans a position's window beside the longest call scored there, so a run's losses for this
  // call can differ from these where a longer call shared its position (fewer context tokens).
  console.log(`scored: ${JSON.stringify(lm.decode(window.next))} (the next ${window.next.length} tokens, after ${window.prefix.length} tokens of context)`);
  console.log(`${paperNames.noCall} noCall     = ${losses.noCall.toFixed(4)}`);
  console.log(`${paperNames.callOnly} callOnly   = ${losses.callOnly.toFixed(4)}`);
  console.log(`${paperNames.withResult} withResult = ${losses.withResult.toFixed(4)}`);
  console.log(`usefulness = ${v.usefulness.toFixed(4)} → ${v.kept ? 'KEPT' : 'DROPPED'} at τ_f = ${tauF}`);
}

/** One call's L_a, L_b, L_c at `at` as the score stage computes them (any CausalLM; the call executed by the tools). */
export async function scoreCall(
  lm: CausalLM,
  config: AnnotateConfig,
  text: string,
  at: number,
  call: { tool: string; input: string },
  flags: Pick<ScoreFlags, 'date' | 'callPlacement'> = {},
) {
  const { parts } = await createNodeParts(lm, config);
  const doc = { id: 'cli', text, date: flags.date };
  const [executed] = await parts.execute([{ call, doc }]);
  if (!executed.ok) throw new Error(`${call.tool} returned an error: ${executed.error}`);
  const spec = parts.registry.get(call.tool)!;
  // As the execute stage writes it: in the text's own form, from the text before the call (spec.ts styleResult).
  const result = spec.styleResult ? spec.styleResult(executed.value, call.input, text.slice(0, at)) : executed.value;
  const texts = { callOnly: callText(parts, call, ''), withResult: callText(parts, call, result) };
  // The score stage's own window plan: the context is cut so that [bos] e(c, r) x_{<i} x_i…x_{i+4} fits the model.
  const plan = planWindow(lm, text, at, [texts.withResult], { contextTokens: config.contextTokens });
  if (!plan) throw new Error(`the call takes ${callTokens(lm, [texts.withResult])} tokens: no room for text in a ${lm.maxLength}-token model`);
  const { window } = plan;
  const inline = flags.callPlacement === 'inline';
  const [scored] = await (inline ? scorePositionsInline : scorePositions)(lm, [{ window, calls: [texts] }]);
  const losses = scored.losses[0];
  if (!hasCallOnly(losses)) throw new Error('L_b was not scored'); // no callOnlyFrom: both scorers score every L_b
  return { texts, window, losses, tauF: spec.thresholds.tauF, inline };
}

/**
 * Where the call goes, from `--at <offset>` or `--before <word>` (exactly one). `--before` places it as the pipeline
 * does, at the end of the word before (core/text/boundaries.ts); an `--at` inside a word is scored as asked, with a
 * `warn` line naming the word and the offset before it, since a call there splits the word the losses are about.
 */
export function callPosition(text: string, flags: Pick<ScoreFlags, 'at' | 'before'>, warn: (line: string) => void): number {
  if ((flags.at === undefined) === (flags.before === undefined)) {
    throw new Error(flags.at === undefined ? 'say where the call goes: --at <offset> or --before <word>' : '--at and --before both say where the call goes: give one');
  }
  if (flags.before !== undefined) {
    const found = positionBeforePhrase(text, flags.before);
    if (!found) throw new Error(`--before ${JSON.stringify(flags.before)}: not in the text as a whole word`);
    if (found.occurrences > 1) warn(`--before ${JSON.stringify(flags.before)} occurs ${found.occurrences} times; the call goes before the first (character ${found.offset})`);
    return found.at;
  }
  const at = flags.at!;
  if (at > text.length) throw new Error(`--at ${at} is past the end of the text (${text.length} characters)`);
  const split = wordAround(text, at);
  if (split) {
    // The suggestions: the pipeline's position before this word, and --before when it names this occurrence.
    const start = positionBefore(text, split.start);
    const byWord = positionBeforePhrase(text, split.word)?.offset === split.start ? `--before ${JSON.stringify(split.word)} or ` : '';
    warn(`--at ${at} splits the word ${JSON.stringify(split.word)} (${text.slice(split.start, at)}|${text.slice(at, split.end)}): ` +
      `the call is scored there as asked; the pipeline puts calls before a word (${byWord}--at ${start})`);
  }
  return at;
}
