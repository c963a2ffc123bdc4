import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CallPlacement } from '../../core/config.ts';
import { defaultConfig } from '../../core/default-config.ts';
import type { Doc } from '../../core/document.ts';
import { annotate } from '../../core/stages/stages.ts';
import { TOOL_SPECS } from '../../core/tools/registry.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import { loadModel } from '../model/load-model.ts';
import { createNodeParts } from '../tools/parts.ts';
import { scoreCommand } from './score-command.ts';

/**
 * `toolformer score` on the longest call `npm start` keeps (bundled model, the India document of the sample corpus:
 * `[QA("What language is spoken in India?") -> Hindi, English]` before "Hindi 41%"): it prints the three losses, and
 * they are the score stage's own for that call alone at that position (one window plan for both).
 */
const root = resolve(import.meta.dirname, '../../..');
const MODEL = join(root, 'models/default');
const doc: Doc = readFileSync(join(root, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l))
  .find((d: Doc) => d.id === 'factbook/south-asia/in/people-and-society/0');
const AT = 161;
const TOOL = 'QA';
const INPUT = 'What language is spoken in India?';

afterEach(() => vi.restoreAllMocks());

async function printed(call: string, callPlacement?: CallPlacement): Promise<string[]> {
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  await scoreCommand(doc.text, { call, at: AT, model: MODEL, callPlacement });
  return out;
}

/** The printed losses, checked against the score stage's for the same call with the same placement. */
async function printedEqualsStage(callPlacement?: CallPlacement): Promise<Record<'noCall' | 'callOnly' | 'withResult', number>> {
  const out = await printed(`${TOOL}("${INPUT}")`, callPlacement);
  const loss = (name: string) => Number(new RegExp(`${name}\\s+= (-?[\\d.]+)`).exec(out.join('\n'))?.[1]);
  const printedLosses = { noCall: loss('noCall'), callOnly: loss('callOnly'), withResult: loss('withResult') };
  for (const x of Object.values(printedLosses)) expect(x).toBeGreaterThan(0);
  expect(out.join('\n')).toContain(`⟨[${TOOL}("${INPUT}") -> Hindi, English]⟩ Hindi 41%`);
  expect(out.join('\n')).toMatch(/^usefulness = [\d.]+ → (KEPT|DROPPED) at τ_f = /m);

  // The pipeline's stages, with this one call proposed at this one position.
  const base = TOOL_SPECS.find((s) => s.name === TOOL)!;
  const only: ToolSpec = { ...base, prefilter: undefined, positions: () => [AT], propose: (_p, _d, at) => (at === AT ? [INPUT] : []), resultForms: undefined };
  const config = defaultConfig({ tools: [TOOL], lmProposals: false, controlMargin: null, ...(callPlacement && { callPlacement }) }, [only]);
  config.thresholds[TOOL] = { ...config.thresholds[TOOL], k: 0 };
  const { parts } = await createNodeParts(await loadModel(MODEL), config, [only]);
  const candidates = [];
  for await (const work of annotate(parts, config, (async function* () { yield doc; })())) candidates.push(...work.candidates);
  const scored = candidates.filter((c) => c.losses);
  expect(scored).toHaveLength(1);
  for (const key of ['noCall', 'callOnly', 'withResult'] as const) expect(printedLosses[key]).toBeCloseTo(scored[0].losses![key]!, 3);
  return printedLosses;
}

describe('toolformer score', () => {
  it('prints the three losses of a long kept call, equal to the score stage\'s', () => printedEqualsStage(), 120_000);

  it('--call-placement inline: the score stage\'s inline losses; L_a as with the prefix, L_b and L_c not', async () => {
    const [prefix, inline] = [await printedEqualsStage(), await printedEqualsStage('inline')];
    expect(inline.noCall).toBeCloseTo(prefix.noCall, 4);
    expect(Math.abs(inline.withResult - prefix.withResult)).toBeGreaterThan(1e-3);
    expect(Math.abs(inline.callOnly - prefix.callOnly)).toBeGreaterThan(1e-3);
  }, 120_000);

  it('says so when the call leaves no room for context', async () => {
    // 30 terms of "1.5 + …": 163 tokens with its result, more than the bundled model's 128 positions.
    const expression = Array(30).fill('1.5').join(' + ');
    await expect(printed(`Calculator(${expression})`)).rejects.toThrow(/^the call takes \d+ tokens: no room for text in a 128-token model$/);
  }, 60_000);
});
