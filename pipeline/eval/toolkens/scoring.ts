/**
 * One scoring for every row of the toolkens comparison (issue 47 item 3), pure.
 *
 * - *Answered*: the eval's metric (metrics.ts answerFound: a gold answer among the first words) on the row's text
 *   with each call's result counted where the call stood: toolkens insert the result as text (ToolkenGPT), the
 *   finetuned arms write `[QA(…) -> r]` — here replaced by r (`inlineResults`), so the result counts for them too —
 *   and a no-model rule's text is its call's result. (The finetuned arms' own metric, the model copying the result
 *   after the call, is the experiment's; it is not this table's.)
 * - *Result right*: the first call's result answers (the same metric on the result alone).
 * - The split: a prompt is dev when fnv1a(subject, else id) mod 3 = 0 (a fact's subject never in both), else test;
 *   the toolken bias is chosen on dev, every row is reported on test.
 */
import { fnv1a } from '../../core/text/hash.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

/** `[QA("…") -> The Valley] V` → ` The Valley  V`: each call replaced by its result (nothing when it has none). */
export function inlineResults(text: string): string {
  let out = '';
  let depth = 0;
  let call = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && depth > 0) {
      call += text[++i] ?? '';
      continue;
    }
    if (ch === '[') {
      if (depth === 0) call = '';
      else call += ch;
      depth++;
    } else if (ch === ']' && depth > 0) {
      depth--;
      if (depth === 0) {
        const arrow = call.lastIndexOf('->');
        out += arrow < 0 ? ' ' : ` ${call.slice(arrow + 2).trim()} `;
      } else call += ch;
    } else if (depth > 0) call += ch;
    else out += ch;
  }
  return out;
}

export type Split = 'dev' | 'test';

export function splitOf(prompt: { id: string; subject?: string }): Split {
  return fnv1a(prompt.subject ?? prompt.id) % 3 === 0 ? 'dev' : 'test';
}

/** "1" its result answers, "0" not, "-" no result: one character per proposal (no-model.ts). */
export type ProposalAnswers = string;

/** Seeded random picks per prompt (the random rule's draws). */
export const DRAWS = 20;

/** How a rule picks among proposals: the first, a seeded random one (draw d of a prompt), or any right one (the oracle). */
export type Pick = 'first' | 'random' | 'oracle';

/** Whether the pick's result answers; `draw` seeds the random pick (per prompt and draw). */
export function pickAnswers(answers: ProposalAnswers, pick: Pick, id: string, draw = 0): boolean {
  if (answers.length === 0) return false;
  if (pick === 'first') return answers[0] === '1';
  if (pick === 'oracle') return answers.includes('1');
  const at = Math.floor(mulberry32(fnv1a(`${id}#${draw}`)).next() * answers.length);
  return answers[at] === '1';
}
