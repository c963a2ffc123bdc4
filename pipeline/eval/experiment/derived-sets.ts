/**
 * Prompt sets derived from the committed eval set (prompts.jsonl), each evaluated by its own step per run and
 * reported beside the families it comments on: the positive control (the held-out subjects in the training
 * templates) and the Factbook cloze cut the way training shows the section (the "Country name:" line kept).
 * Pure: the eval set, the corpus documents and a tokenizer's `encode` are passed in.
 */
import type { EvalPrompt } from '../tasks.ts';
import type { CorpusDoc } from './heldout.ts';
import { MAX_PROMPT_TOKENS } from './eval-sets.ts';

/** The positive control's family (its file, positive-control.jsonl, is committed beside prompts.jsonl). */
export const POSITIVE_CONTROL_FAMILY = 'capitals-training-template';

/**
 * The positive control (issue 31 item 2): the held-out capital subjects of the eval set in the KB prose's own
 * training templates (tasks.ts trainDocs: "The capital of X is …", "X is a country. The capital of X is …"). A model
 * that learned the mechanics answers these with a call; the gap to the real-format and off-template families is
 * then about carrying the call to new phrasings, not about calling at all. Subjects come from the eval set, so
 * they are in no finetuning template instance (experiment.test.ts checks the eval subjects against the train split).
 */
export function positiveControlPrompts(prompts: readonly EvalPrompt[]): EvalPrompt[] {
  const bySubject = new Map<string, EvalPrompt>();
  for (const p of prompts) if (p.family === 'capitals' && !p.real && p.subject && !bySubject.has(p.subject)) bySubject.set(p.subject, p);
  const templates = [
    { name: 'kb-prose', text: (s: string) => `The capital of ${s} is` },
    { name: 'kb-prose-country', text: (s: string) => `${s} is a country. The capital of ${s} is` },
  ];
  return [...bySubject.values()].flatMap((p, i) => templates.map((t) => ({
    id: `${POSITIVE_CONTROL_FAMILY}/${t.name}/${i}`, date: p.date, family: POSITIVE_CONTROL_FAMILY, phrasing: t.name,
    subject: p.subject, prompt: t.text(p.subject!), answers: p.answers, tool: p.tool,
  })));
}

/** The Factbook cloze with the training-format cut (its file: factbook-train-cut.jsonl beside prompts.jsonl). */
export const FACTBOOK_TRAIN_CUT_FAMILY = 'capitals-factbook-train-cut';
/** The eval set's Factbook cloze phrasing whose prompts this cut redoes (eval-sets.ts, "lines dropped from the top"). */
export const FACTBOOK_CLOZE = 'factbook-cloze';
const CUE = '\nCapital: name:';
/** "conventional long form: …; conventional short form: …", the Country name line's first two fields. */
const CONVENTIONAL_FIELDS = 2;

/**
 * A Factbook government section cut before its capital the way training shows it: the header, the whole
 * "Country name:" line (every finetuning record with a Factbook capital call holds it, and it names the country the
 * call asks about), then the lines after it up to the capital. Until the prompt fits `maxTokens`, the Country
 * name line loses whole "; "-separated fields from its end down to its two conventional forms, then the lines after it
 * are dropped from the top, then the conventional forms go too. Null when the section has no "Country name:" line
 * before the capital or nothing fits.
 */
export function factbookTrainCut(doc: CorpusDoc, encode: (s: string) => number[], maxTokens = MAX_PROMPT_TOKENS): string | null {
  return factbookSectionCut(doc, CUE, encode, maxTokens, { countryLine: true });
}

/**
 * Any Factbook section cut before the line that starts with `cue` (a "\n"-led field label such as "\nPopulation:"),
 * in the corpus's own format: the header ("X: People and Society."), then the lines nearest the cue, ending with the
 * cue. A "Country name:" line (government sections) is kept first and shortened as factbookTrainCut does (down to
 * nothing when `countryLine` is not required); the lines between it (or the header) and the cue are dropped from
 * the top until the prompt fits `maxTokens`. Null when the cue is not in the text, when `countryLine` is required and
 * absent, or when nothing fits.
 */
export function factbookSectionCut(doc: CorpusDoc, cue: string, encode: (s: string) => number[], maxTokens = MAX_PROMPT_TOKENS,
  opts: { countryLine?: boolean } = {}): string | null {
  const at = doc.text.indexOf(`${cue} `);
  if (at < 0) return null;
  const [header, ...body] = doc.text.slice(0, at).split('\n');
  const countryAt = body.findIndex((l) => l.startsWith('Country name:'));
  if (countryAt < 0 && opts.countryLine) return null;
  let fields = countryAt < 0 ? [] : body[countryAt].split('; ');
  let rest = body.slice(countryAt + 1);
  const build = () => [header, ...(fields.length ? [fields.join('; ')] : []), ...rest].join('\n') + cue;
  const fits = () => encode(build()).length <= maxTokens;
  // The line's local forms and notes go first, then the lines between it and the cue (from the top, so the line
  // right before the cue, the one every training window ends with, stays longest), then its conventional forms.
  while (fields.length > CONVENTIONAL_FIELDS && !fits()) fields = fields.slice(0, -1);
  while (rest.length > 0 && !fits()) rest = rest.slice(1);
  while (fields.length > (opts.countryLine ? 1 : 0) && !fits()) fields = fields.slice(0, -1);
  return fits() ? build() : null;
}

/**
 * The eval set's Factbook cloze prompts again with the training-format cut (factbookTrainCut), same subjects,
 * answers and source sections; the old cut stays in prompts.jsonl as "factbook-cloze". A section the cut cannot fit
 * is left out (the report states the count).
 */
export function factbookTrainCutPrompts(prompts: readonly EvalPrompt[], factbook: readonly CorpusDoc[], encode: (s: string) => number[]): EvalPrompt[] {
  const docs = new Map(factbook.map((d) => [d.id, d]));
  const out: EvalPrompt[] = [];
  for (const p of prompts.filter((q) => q.phrasing === FACTBOOK_CLOZE)) {
    const doc = docs.get(p.source!);
    if (!doc) throw new Error(`factbook-train-cut: ${p.id}'s source ${p.source} is not in the corpus`);
    const prompt = factbookTrainCut(doc, encode);
    if (prompt === null) continue;
    out.push({ id: `${FACTBOOK_TRAIN_CUT_FAMILY}/factbook-train-cut/${out.length}`, date: p.date, family: FACTBOOK_TRAIN_CUT_FAMILY,
      phrasing: 'factbook-train-cut', subject: p.subject, prompt, answers: p.answers, tool: p.tool, real: true, source: p.source });
  }
  return out;
}
