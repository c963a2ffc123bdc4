/**
 * The fresh in-format eval set of the pretraining dose–response (issue 47 item 2), built and committed with the
 * pre-registration (preregistration.md) before any run of the new bases existed: held-out Factbook sections cut, in
 * the corpus's own format, before a field whose value the QA knowledge base holds — relations beyond capitals
 * (population, languages, area, independence, currency). Each prompt ends with the field's label
 * ("Algeria: People and Society.\n…\nPopulation:"); the answers are the KB's value and the Factbook's own.
 *
 * Subjects: the experiment's 60 held-out countries (heldout.ts: every Factbook document of theirs is held out of every
 * finetuning text). All 60 qualify here, not only the 44 the capital families ask about: the 16 others were left out
 * of the capital eval because their *capital* is in the synthetic tool rows (data-synthetic.ts holds capitals only).
 * Pretraining is another matter: the bases were pretrained on corpus/ minus 1 document in 50 (train/data.ts
 * splitDocs), so most source sections are in the pretraining text; `pretrainingExposure` counts it.
 * Pure: the corpus, the KB, the held-out lists and a tokenizer's `encode` are passed in.
 */
import { fnv1a } from '../../core/text/hash.ts';
import { PAPER_TOOLS } from '../../core/tools/registry.ts';
import type { EvalPrompt, KbFact } from '../tasks.ts';
import { factbookSectionCut } from './derived-sets.ts';
import { MAX_PROMPT_TOKENS } from './eval-sets.ts';
import { factbookCountry, type CorpusDoc, type HeldOut } from './heldout.ts';

export const FRESH_FAMILY = 'factbook-fresh';
/** Every prompt's document date (no Calendar question here; the eval set's fixed date). */
const FIXED_DATE = '2020-06-15';

/** One relation: the KB relation, the Factbook section and field label before its value, and how to read the value. */
export interface FreshRelation {
  relation: 'population' | 'language' | 'area' | 'independence' | 'currency';
  /** The section's id segment (factbook/<region>/<code>/<section>/<chunk>). */
  section: string;
  /** The field label that ends the prompt, "\n"-led as in the text. */
  cue: string;
  /** The Factbook's own answers, read from the rest of the field's line; [] when the line states none. */
  values(line: string): string[];
}

/** "Arabic (official), French (lingua franca), …" → "Arabic"; the first "(official)" item, else the first item. */
function firstLanguage(line: string): string[] {
  const items = line.split(/[,;]\s*/);
  const item = items.find((i) => /\(official\)/.test(i)) ?? items[0];
  const name = item.replace(/\(.*$/, '').replace(/\s*[\d.]+%.*$/, '').trim();
  return /^[A-Z][\p{L}' -]*$/u.test(name) && name.split(' ').length <= 3 ? [name] : [];
}

export const FRESH_RELATIONS: readonly FreshRelation[] = [
  { relation: 'population', section: 'people-and-society', cue: '\nPopulation:', values: (l) => /^(\d[\d,]*)/.exec(l)?.slice(1) ?? [] },
  { relation: 'language', section: 'people-and-society', cue: '\nLanguages:', values: firstLanguage },
  // The total with its unit, and the number alone (the fact is the number; "sq km" is format).
  { relation: 'area', section: 'geography', cue: '\nArea: total:', values: (l) => /^((\d[\d,.]*) sq km)/.exec(l)?.slice(1) ?? [] },
  { relation: 'independence', section: 'government', cue: '\nIndependence:', values: (l) => /^(\d{1,2} [A-Z][a-z]+ \d{3,4})/.exec(l)?.slice(1) ?? [] },
  { relation: 'currency', section: 'economy', cue: '\nExchange rates:', values: (l) => /^(.+?) \([A-Z]{3}\) per US dollar/.exec(l)?.slice(1) ?? [] },
];

/** The section's documents in corpus order (a field may sit in a continued chunk: "Algeria: Economy (continued)."). */
const sectionDocs = (factbook: readonly CorpusDoc[], country: string, section: string): CorpusDoc[] =>
  factbook.filter((d) => factbookCountry(d) === country && d.id.split('/')[3] === section);

/**
 * Every held-out country × relation whose section holds the field, cut before it (factbookSectionCut, ≤ maxTokens).
 * Answers: the KB's value(s) for the country and relation, then the Factbook line's own; a prompt with no answer, or
 * whose prompt text already holds an answer (that would test copying from the context, not the tool), is left out.
 */
export function freshInFormatPrompts(input: {
  kb: readonly KbFact[];
  heldOut: HeldOut;
  factbook: readonly CorpusDoc[];
  encode: (s: string) => number[];
  maxTokens?: number;
}): EvalPrompt[] {
  const out: EvalPrompt[] = [];
  for (const rel of FRESH_RELATIONS) {
    let n = 0;
    for (const country of input.heldOut.countries) {
      const doc = sectionDocs(input.factbook, country, rel.section).find((d) => d.text.includes(`${rel.cue} `));
      if (!doc) continue;
      const line = doc.text.slice(doc.text.indexOf(`${rel.cue} `) + rel.cue.length + 1).split('\n')[0];
      const kbValues = input.kb.filter((f) => f.subject === country && f.relation === rel.relation && f.object).map((f) => f.object!);
      const answers = [...new Set([...kbValues, ...rel.values(line)])];
      const prompt = factbookSectionCut(doc, rel.cue, input.encode, input.maxTokens ?? MAX_PROMPT_TOKENS);
      if (prompt === null || answers.length === 0 || answers.some((a) => prompt.toLowerCase().includes(a.toLowerCase()))) continue;
      out.push({ id: `${FRESH_FAMILY}/${rel.relation}/${n++}`, date: FIXED_DATE, family: FRESH_FAMILY, phrasing: rel.relation,
        subject: country, prompt, answers, tool: PAPER_TOOLS.qa.name, real: true, source: doc.id });
    }
  }
  return out;
}

/** Whether train/data.ts splitDocs puts a corpus document in the pretraining text (1 in 50 by id hash is validation). */
export const inPretrainingText = (doc: Pick<CorpusDoc, 'id'>): boolean => fnv1a(doc.id) % 50 !== 0;

/** What the bases' pretraining text held of one prompt. */
export interface PromptExposure {
  id: string;
  relation: string;
  /** The prompt's own source section is in the pretraining text (not the 1-in-50 validation share). */
  sourceInPretraining: boolean;
  /** Pretraining documents that name the subject and hold one of the answers (case-insensitive), the source included. */
  answerDocs: number;
}

/**
 * Pretraining exposure of each prompt (issue 47: "with pretraining exposure measured and reported"): whether its
 * source section, and how many pretraining documents naming its subject together with an answer, are in the text
 * the bases were pretrained on (every base: corpus/sotu.jsonl + corpus/factbook.jsonl, same split).
 */
export function pretrainingExposure(prompts: readonly EvalPrompt[], corpusDocs: readonly CorpusDoc[]): PromptExposure[] {
  const pretraining = corpusDocs.filter(inPretrainingText).map((d) => ({ id: d.id, lower: d.text.toLowerCase() }));
  const byId = new Set(pretraining.map((d) => d.id));
  return prompts.map((p) => {
    const subject = (p.subject ?? '').toLowerCase();
    const answers = p.answers.map((a) => a.toLowerCase());
    return {
      id: p.id, relation: p.phrasing ?? '',
      sourceInPretraining: byId.has(p.source ?? ''),
      answerDocs: pretraining.filter((d) => d.lower.includes(subject) && answers.some((a) => d.lower.includes(a))).length,
    };
  });
}
