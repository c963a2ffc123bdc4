/**
 * What arm (a)'s calls asked on the fresh in-format set (issue 47 item 2), beside the dose–response section: the
 * pre-registered columns say whether the tool's result was right; this table says why it was not — whether each
 * prompt's first call named the prompt's subject (its country) and the prompt's relation (the field the prompt ends
 * on), or asked something else (most often a capital). Descriptive, added after the first doses' results were read;
 * it is not one of the pre-registered comparisons and decides nothing.
 * Pure: the trials and the fresh set's prompts are passed in.
 */
import { parseQuestion } from '../../core/tools/qa/questions.ts';
import { subjectKey } from '../../core/tools/qa/qa.ts';
import { PAPER_TOOLS } from '../../core/tools/registry.ts';
import type { TrialRecord } from '../metrics.ts';
import type { EvalPrompt } from '../tasks.ts';
import { cci, cell, type Cell } from './cells.ts';

/** How a prompt's first call (with tools) relates to the prompt, read by the QA tool's own question parser. */
export type CallAim = 'subject and relation' | 'subject, other relation' | 'relation, other subject' | 'neither' | 'no question form' | 'no call';
export const CALL_AIMS: readonly CallAim[] = ['subject and relation', 'subject, other relation', 'relation, other subject', 'neither', 'no question form', 'no call'];

/**
 * The aim of one with-tools trial's first call against its prompt: the question parsed as the QA tool parses it
 * (questions.ts), its relation against the prompt's (its phrasing), its subject against the prompt's country by
 * subjectKey, a longer name holding the country's name as whole words counting ("Republic of Costa Rica" for "Costa Rica").
 */
export function callAim(t: TrialRecord, q: EvalPrompt): CallAim {
  const call = t.calls[0];
  if (call === undefined) return 'no call';
  const parsed = call.tool === PAPER_TOOLS.qa.name ? parseQuestion(call.input) : null;
  if (parsed === null) return 'no question form';
  const subject = q.subject !== undefined && ` ${subjectKey(parsed.subject)} `.includes(` ${subjectKey(q.subject)} `);
  const relation = parsed.relation === q.phrasing;
  return subject && relation ? 'subject and relation' : subject ? 'subject, other relation' : relation ? 'relation, other subject' : 'neither';
}

/** Whether a with-tools trial's first call asks the QA tool for a capital (the relation the finetuning data is full of). */
export const asksCapital = (t: TrialRecord): boolean =>
  t.calls[0]?.tool === PAPER_TOOLS.qa.name && parseQuestion(t.calls[0].input)?.relation === 'capital';

/**
 * The table's lines: per dose (label → the runs' fresh trials of arm (a)), the share of prompts in each CallAim and
 * the share whose first call asks for a capital, % with the interval clustered by prompt.
 */
export function callAimLines(levels: { label: string; runs: TrialRecord[][] }[], prompts: Map<string, EvalPrompt>): string[] {
  const show = (c: Cell) => (c.n === 0 ? '–' : cci(c, false));
  const withTools = (t: TrialRecord) => t.tools && prompts.has(t.id);
  const L = [
    'What (a)\'s first call asked, on the fresh set with tools (descriptive, added after the 1×, 3× and first 10× results were read; not a ' +
      'pre-registered comparison): whether the question, read by the tool\'s own parser, names the prompt\'s country and the field the prompt ends on. % of prompts over the ' +
      'finetune seeds, interval clustered by prompt.',
    '',
    `| dose | ${CALL_AIMS.join(' | ')} | asks for a capital |`,
    `|---|${CALL_AIMS.map(() => '---').join('|')}|---|`,
  ];
  for (const { label, runs } of levels) {
    const aims = CALL_AIMS.map((aim) => show(cell(runs, withTools, (t) => callAim(t, prompts.get(t.id)!) === aim)));
    L.push(`| ${label} | ${aims.join(' | ')} | ${show(cell(runs, withTools, asksCapital))} |`);
  }
  return L;
}
