/**
 * The Translate tool (the paper's MT), whole: `[Translate("la casa es grande") -> the house is big]`. The engine is
 * translate.ts: language identification (language-id.ts, eld) and a translation engine the platform passes in as
 * `resources.translationEngine` (Node: Apertium, pipeline/node/tools/apertium.ts; absent → the "not installed" error).
 */
import type { Doc } from '../../document.ts';
import { paperPrompt } from '../prompts.ts';
import { positionAfter } from '../../text/boundaries.ts';
import { wordF1 } from '../../text/compare.ts';
import { clip, containsPhrase, normalize } from '../../text/phrases.ts';
import { englishRatio, findForeignSpans } from './foreign-spans.ts';
import type { PrefilterVerdict, ToolResources, ToolSpec } from '../spec.ts';
import { createEldDetector } from './language-id.ts';
import { proposeTranslate } from './proposer.ts';
import { type LanguageDetector, MAX_TRANSLATE_LENGTH, Translate, type TranslationEngine } from './translate.ts';

const NAME = 'Translate';

/** Share of English function words below which a text is not "English text" (English prose: ~0.4–0.5). */
export const MIN_ENGLISH_RATIO = 0.1;

export const translate: ToolSpec = {
  name: NAME,
  description: 'Translates a short non-English text into English.',
  documentation: {
    category: 'Language',
    syntax: ['Translate("la casa es grande")'],
    examples: ['what a foreign word or sentence means in English', 'a Spanish, Catalan or Galician text in English'],
    seeAlso: [],
  },
  parameters: {
    type: 'object',
    properties: {
      text: {
        type: 'string',
        description: 'a short text in another language, e.g. la casa es grande',
        minLength: 1,
        maxLength: MAX_TRANSLATE_LENGTH,
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  argument: { syntax: 'quoted', property: 'text' },
  create: (resources: ToolResources) =>
    new Translate({
      detector: (resources.languageDetector as LanguageDetector | undefined) ?? createEldDetector(),
      engine: resources.translationEngine as TranslationEngine | undefined,
    }),
  /** Another wording passes: at least half the words in common (word F1 ≥ 0.5). */
  sameResult: (result, expected) => wordF1(result, expected) >= 0.5,
  prompt: paperPrompt(
    NAME,
    'Your task is to complete a given piece of text by using a Machine Translation API. You can do so by writing ' +
      '"[Translate(text)]" where text is the text to be translated into English.',
    {
      input: 'He said "la tortuga es verde", the turtle is green.',
      output: 'He said "la tortuga es verde", [Translate("la tortuga es verde")] the turtle is green.',
    },
  ),
  // Paper App. A: MT τ_s 0, k 20, m 10, τ_f 0.5.
  thresholds: { tauS: 0, tauF: 0.5, k: 20, m: 10 },
  prefilter: translatePrefilter,
  /** After each non-English span (and its closing quote), as the paper's MT calls follow the span. */
  positions: (text) => findForeignSpans(text).map((s) => positionAfter(text, s.end)),
  leaks: translateLeak,
  propose: (prefix) => proposeTranslate(prefix),
  // The result is Apertium's (spa-eng) for the input; the call stands after the span, before its translation.
  examples: [
    {
      text: 'The anthem begins "Mexicanos, al grito de guerra", Mexicans, to the cry of war.',
      at: 51,
      input: 'Mexicanos, al grito de guerra',
      result: 'Mexicans, to the cry of war',
    },
  ],
};

/**
 * A non-English span inside English text. Cheap heuristics (foreign-spans.ts): the text's share of English function
 * words ≥ 0.1 (Factbook field lists score 0.1–0.35) and at least one foreign span. The tool itself does real
 * language identification.
 */
function translatePrefilter(doc: Doc): PrefilterVerdict {
  const ratio = englishRatio(doc.text);
  if (ratio < MIN_ENGLISH_RATIO) {
    return { pass: false, kind: 'not_english', reason: `not English text (function-word share ${ratio.toFixed(2)} < ${MIN_ENGLISH_RATIO})` };
  }
  const spans = findForeignSpans(doc.text);
  if (spans.length === 0) return { pass: false, kind: 'no_foreign_span', reason: 'no non-English span' };
  return { pass: true, kind: 'foreign_span', reason: `non-English span "${spans[0].text}"` };
}

/** The span to translate must be text already read (case and spacing aside). */
function translateLeak(input: string, prefix: string): string | null {
  const span = normalize(input);
  if (span === '') return 'Translate input is empty';
  if (containsPhrase(normalize(prefix), span)) return null;
  return `Translate input "${clip(input)}" does not appear in the text before the call`;
}
