import type { Candidate } from '../candidates.ts';
import type { CausalLM } from '../lm/lm.ts';
import type { CallPlacement } from '../run-defaults.ts';
import { INLINE_PLACEMENT } from './inline-scoring.ts';
import { PREFIX_PLACEMENT, type ScoringWindow } from './scoring.ts';
import { callTokens, planWindow } from './window.ts';

/**
 * The counterfactual control (issue 10): a kept call must also make the next tokens easier to predict than a
 * *wrong* result of the same tool would. A call whose "result" only helps because any number (or any name) there
 * helps — `41 * 6 -> 246` before "March" — is rejected when the true result does not beat a distractor by a margin.
 *
 * The distractor keeps the result's form and changes its content: digits shifted by five ("82,487" → "37,932",
 * "This year is 1867." → "This year is 6312."), so length, separators and units stay; a result without digits is
 * replaced by another result of the same tool in the same document, if there is one.
 */
export function distractorFor(result: string, sameToolResults: readonly string[]): string | null {
  if (/\d/.test(result)) {
    let first = true;
    return result.replace(/\d/g, (d) => {
      let x = (Number(d) + 5) % 10;
      if (first && x === 0) x = 9; // no leading zero: "5" → "9", not "0"
      first = false;
      return String(x);
    });
  }
  const lower = result.toLowerCase();
  const other = [...sameToolResults].sort().find((r) => r.trim() !== '' && !r.toLowerCase().includes(lower) && !lower.includes(r.toLowerCase()));
  return other ?? null;
}

/**
 * Score each candidate's distractor beside its true result, at the same position and in the same window (planned
 * by window.ts beside the longer of the two calls, so the two L_c are comparable), and store the margin on the
 * candidate. Candidates without a distractor (no digits and no other result of the tool in the document), or whose
 * calls leave no room, are left without `control`: the control cannot judge them.
 */
export async function measureControl(
  lm: CausalLM,
  text: string,
  candidates: readonly Candidate[],
  /** Every candidate of the document with a result: where a result without digits finds its distractor. */
  pool: readonly Candidate[],
  format: (c: Candidate, result: string) => string,
  /** `placement`: where the calls sit when scored, as in the score stage. @default "prefix" */
  options: { contextTokens: number; maxCallTokens: number; batchSize: number; placement?: CallPlacement },
): Promise<void> {
  const byTool = new Map<string, string[]>();
  for (const c of pool) if (c.result !== undefined) byTool.set(c.tool, [...(byTool.get(c.tool) ?? []), c.result]);
  const jobs: Array<{ c: Candidate; distractor: string; window: ScoringWindow }> = [];
  for (const c of candidates) {
    if (c.result === undefined) continue;
    const distractor = distractorFor(c.result, byTool.get(c.tool) ?? []);
    if (distractor === null) continue;
    const longest = callTokens(lm, [format(c, c.result), format(c, distractor)]);
    if (longest > options.maxCallTokens) continue;
    const plan = planWindow(lm, text, c.at, longest, { contextTokens: options.contextTokens });
    if (plan) jobs.push({ c, distractor, window: plan.window });
  }
  // Only what the margin reads: L_c of the true result and of the distractor, both in the control's window (L_a and
  // L_b do not enter it; the true L_c is scored again because this window is planned beside the longer call).
  const placement = options.placement === 'inline' ? INLINE_PLACEMENT : PREFIX_PLACEMENT;
  const withResult = (c: Candidate, result: string, window: ScoringWindow) => ({ window, callIds: placement.callIds(lm, format(c, result), window) });
  const losses = await placement.losses(
    lm,
    jobs.flatMap((j) => [withResult(j.c, j.c.result!, j.window), withResult(j.c, j.distractor, j.window)]),
    { batchSize: options.batchSize },
  );
  jobs.forEach((j, i) => {
    const [truth, wrong] = [losses[2 * i], losses[2 * i + 1]];
    j.c.control = { distractor: j.distractor, margin: Math.round((wrong - truth) * 1e4) / 1e4 };
  });
}
