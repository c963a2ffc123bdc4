/**
 * The QA tool, whole: `[QA("What is the capital of Pennsylvania?") -> Harrisburg]`. The engine is qa.ts (exact and
 * fuzzy lookup in the knowledge base pipeline/data/kb.json, which the platform passes in as `resources.kb`), the
 * question forms questions.ts, the proposer proposer.ts.
 */
import type { Doc } from '../../document.ts';
import { paperPrompt } from '../prompts.ts';
import { positionBefore } from '../../text/boundaries.ts';
import { foldText } from '../../text/compare.ts';
import { clip, containsPhrase, normalize } from '../../text/phrases.ts';
import { findEntities } from './entities.ts';
import { PAPER_DEFAULTS, type PrefilterVerdict, type ToolResources, type ToolSpec } from '../spec.ts';
import { proposeQA } from './proposer.ts';
import { type KnowledgeBase, MAX_QUESTION_LENGTH, QA } from './qa.ts';
import { parseQuestion } from './questions.ts';

const NAME = 'QA';

export const qa: ToolSpec = {
  name: NAME,
  description:
    'Answers a short factual question (capitals, populations, currencies, languages, elements, who/what is X) from a local knowledge base.',
  documentation: {
    category: 'Facts',
    syntax: ['QA("What is the capital of Pennsylvania?")'],
    examples: ['the capital city of a country or state', 'how many people live in a country', 'the money a country uses',
      'the chemical symbol or atomic number of an element', 'who a famous person was'],
    seeAlso: [],
  },
  parameters: {
    type: 'object',
    properties: {
      question: {
        type: 'string',
        description: 'a question, e.g. What is the capital of Pennsylvania?',
        minLength: 1,
        maxLength: MAX_QUESTION_LENGTH,
      },
    },
    required: ['question'],
    additionalProperties: false,
  },
  argument: { syntax: 'quoted', property: 'question' },
  create: (resources: ToolResources) => {
    const kb = resources.kb as KnowledgeBase | undefined;
    if (!kb) throw new Error('the QA tool needs resources.kb (pipeline/data/kb.json, parsed)');
    return new QA(kb);
  },
  prompt: paperPrompt(
    NAME,
    'Your task is to add calls to a Question Answering API to a piece of text. The questions should help you get ' +
      'information required to complete the text. You can call the API by writing "[QA(question)]" where "question" ' +
      'is the question you want to ask.',
    {
      input: 'Harrisburg is the capital of Pennsylvania.',
      output: '[QA("What is the capital of Pennsylvania?")] Harrisburg is the capital of Pennsylvania.',
    },
  ),
  // Control margin 0.5: a QA distractor is another answer from the same document (a name, not a shifted number), and
  // on the labelled dev split margin 1 dropped correct capitals (Algiers: 0.97) without dropping a wrong call.
  thresholds: { ...PAPER_DEFAULTS, controlMargin: 0.5 },
  /** A name answer is also tried in capitals ("DUBLIN (capital)" in the Factbook's urban-areas field). */
  /** The expected answer, or an answer that begins with it ("Hindi, English" for "Hindi"). */
  sameResult: (result, expected) => {
    const [r, w] = [foldText(result), foldText(expected)];
    return r === w || r.startsWith(`${w} `);
  },
  resultForms: (answer) => (/\p{Ll}/u.test(answer) && !/\d/.test(answer) && answer.length <= 40 ? [answer.toUpperCase()] : []),
  prefilter: qaPrefilter,
  /** Before capitalised entities, and before a number or date that a QA cue announces ("Population: 4,892,305"). */
  positions: (text) => [...findEntities(text).map((e) => positionBefore(text, e.start)), ...cuedValues(text)],
  leaks: qaLeak,
  propose: (prefix) => proposeQA(prefix),
  examples: [
    {
      text: 'The capital of Pennsylvania is Harrisburg, on the Susquehanna.',
      at: 30,
      input: 'What is the capital of Pennsylvania?',
      result: 'Harrisburg',
    },
  ],
};

/** A fact the knowledge base holds is announced just before: "Population:", "Area: total:", "a population of". */
const VALUE_CUE = /\b(?:population|inhabitants|area|independence|independent)\b[^.\n\d]{0,14}$/i;

/** Positions before numbers (and day-month-year dates) that a QA cue announces. */
function cuedValues(text: string): number[] {
  const out: number[] = [];
  for (const m of text.matchAll(/\d[\d,.]*/g)) {
    if (m.index > 0 && /[\w.,]/.test(text[m.index - 1])) continue;
    if (VALUE_CUE.test(text.slice(Math.max(0, m.index - 40), m.index))) out.push(positionBefore(text, m.index));
  }
  return out;
}

/**
 * The document names something a question could be about — one capitalised entity that is neither a sentence
 * opener nor a generic institution word (entities.ts `findEntities`). Whether the knowledge base knows it is
 * left to the tool and the loss filter.
 */
function qaPrefilter(doc: Doc): PrefilterVerdict {
  const entities = findEntities(doc.text);
  return entities.length > 0
    ? { pass: true, kind: 'entity', reason: `entity "${entities[0].text}"` }
    : { pass: false, kind: 'no_entity', reason: 'no capitalised entity' };
}

/**
 * The question's subject must appear in the prefix ("What is the capital of Pennsylvania?" needs "Pennsylvania"
 * before the call). A question the QA tool cannot parse is checked word by word: every capitalised word after the
 * first must appear.
 */
function qaLeak(input: string, prefix: string): string | null {
  const text = normalize(prefix);
  const parsed = parseQuestion(input);
  if (parsed) {
    const subject = normalize(parsed.subject);
    const bare = subject.replace(/^the /, '');
    if (containsPhrase(text, subject) || containsPhrase(text, bare)) return null;
    return `QA subject "${clip(parsed.subject)}" does not appear in the text before the call`;
  }
  const words = (input.match(/\p{L}[\p{L}'’-]*/gu) ?? []).slice(1).filter((w) => /^\p{Lu}/u.test(w));
  const missing = words.filter((w) => !containsPhrase(text, w.toLowerCase()));
  if (missing.length === 0) return null;
  return `QA input names ${missing.map((w) => `"${w}"`).join(', ')}, not in the text before the call`;
}
