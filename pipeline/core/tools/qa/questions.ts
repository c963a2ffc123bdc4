/**
 * The question forms the QA tool understands — the one place they are written down. The QA proposer generates
 * questions with `formatQuestion` and the QA tool reads them back with `parseQuestion`, so both agree by
 * construction. Each form maps to one knowledge-base relation (`Fact.relation` in qa.ts / kb.json).
 */

/** Relations stored in the knowledge base. */
export type Relation =
  | 'capital' // country or US state → its capital city
  | 'population' // country → "321,368,864 (July 2015 est.)"-style figure
  | 'currency' // country → currency name
  | 'language' // country → languages spoken
  | 'area' // country → total area, "9,833,517 sq km"
  | 'independence' // country → independence date/event
  | 'continent' // country → continent
  | 'country' // city (capital or WordNet place) → country it is in
  | 'atomic_number' // element name → atomic number
  | 'symbol' // element name → chemical symbol
  | 'element' // chemical symbol → element name
  | 'definition'; // person/place/thing → short WordNet gloss ("Who is X?", "What is X?")

export interface QuestionTemplate {
  relation: Relation;
  /** The form with `{X}` for the subject, e.g. "What is the capital of {X}?". */
  form: string;
  /** One worked example, for prompts, docs and tests. */
  example: { subject: string; question: string };
}

/**
 * Order matters for parsing: specific forms come before the catch-all "What is {X}?", which would otherwise
 * swallow "What is the capital of France?". The first form listed per relation is the one `formatQuestion` writes.
 */
export const QUESTION_TEMPLATES: readonly QuestionTemplate[] = [
  t('capital', 'What is the capital of {X}?', 'Pennsylvania'),
  t('capital', 'What is the capital city of {X}?', 'France'),
  t('population', 'What is the population of {X}?', 'Canada'),
  t('population', 'How many people live in {X}?', 'Canada'),
  t('currency', 'What is the currency of {X}?', 'Japan'),
  t('currency', 'What currency is used in {X}?', 'Japan'),
  t('language', 'What language is spoken in {X}?', 'Brazil'),
  t('language', 'What languages are spoken in {X}?', 'Brazil'),
  t('language', 'What is the official language of {X}?', 'Brazil'),
  t('area', 'What is the area of {X}?', 'Germany'),
  t('area', 'How big is {X}?', 'Germany'),
  t('independence', 'When did {X} become independent?', 'Mexico'),
  t('independence', 'When did {X} gain independence?', 'Mexico'),
  t('continent', 'On which continent is {X}?', 'Kenya'),
  t('continent', 'On what continent is {X}?', 'Kenya'),
  t('country', 'In which country is {X}?', 'Lyon'),
  t('country', 'In what country is {X}?', 'Lyon'),
  t('country', 'Which country is {X} in?', 'Lyon'),
  t('atomic_number', 'What is the atomic number of {X}?', 'carbon'),
  t('symbol', 'What is the chemical symbol of {X}?', 'gold'),
  t('symbol', 'What is the symbol of {X}?', 'gold'),
  t('element', 'Which element has the symbol {X}?', 'Fe'),
  t('element', 'What element has the symbol {X}?', 'Fe'),
  t('definition', 'Who is {X}?', 'Abraham Lincoln'),
  t('definition', 'Who was {X}?', 'Abraham Lincoln'),
  t('definition', 'What is {X}?', 'Harrisburg'),
  t('definition', 'What was {X}?', 'Harrisburg'),
];

/** Relations in a stable order (first appearance in QUESTION_TEMPLATES). */
export const RELATIONS: readonly Relation[] = [...new Set(QUESTION_TEMPLATES.map((q) => q.relation))];

/** The canonical question for a relation and subject: `formatQuestion('capital', 'Pennsylvania')`. */
export function formatQuestion(relation: Relation, subject: string): string {
  const template = QUESTION_TEMPLATES.find((q) => q.relation === relation);
  if (!template) throw new Error(`no question form for relation ${relation}`);
  return template.form.replace('{X}', subject.trim());
}

export interface ParsedQuestion {
  relation: Relation;
  /** The subject as written, trimmed, without surrounding quotes (a leading "the" is kept: "The Hague"). */
  subject: string;
  /** The form that matched. */
  form: string;
}

const MATCHERS = QUESTION_TEMPLATES.map((q) => ({ template: q, regex: toRegex(q.form) }));

/**
 * Read a question in one of the forms above. Case-insensitive; the final "?" and extra spaces are optional.
 * Returns null for anything else (the QA tool then answers with an error, never a guess).
 */
export function parseQuestion(question: string): ParsedQuestion | null {
  const normalized = question.replace(/\s+/g, ' ').trim();
  for (const { template, regex } of MATCHERS) {
    const match = regex.exec(normalized);
    if (!match) continue;
    const subject = cleanSubject(match[1]);
    if (subject.length === 0) continue;
    return { relation: template.relation, subject, form: template.form };
  }
  return null;
}

function cleanSubject(raw: string): string {
  return raw
    .trim()
    .replace(/^["'“‘]+|["'”’]+$/g, '')
    .trim();
}

function toRegex(form: string): RegExp {
  const [before, after] = form.replace(/\?$/, '').split('{X}');
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ /g, '\\s+');
  // Subject: any run of characters without "?" (lazy, so a trailing " in?" stays in the form).
  return new RegExp(`^${escape(before)}([^?]+?)${escape(after)}\\s*\\??$`, 'i');
}

function t(relation: Relation, form: string, subject: string): QuestionTemplate {
  return { relation, form, example: { subject, question: form.replace('{X}', subject) } };
}
