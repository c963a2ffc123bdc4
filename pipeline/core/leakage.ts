/**
 * Leakage guard: a call's argument must be derivable from the text *before* its position. Otherwise the filter
 * rewards calls that copy the answer from the continuation they are scored on — the public-repo bug
 * `[Calculator(24*5) -> 120] 120/24=5`, where 24 and 5 appear only after the call, so the call "predicts" the text
 * perfectly without any tool use (NOTES §1; paper App. A.1 drops MT calls whose input appears only after them).
 */
import { parseQuestion } from './tools/qa-questions.ts';
import type { ToolCall } from './tools/tool.ts';

/**
 * Constants a Calculator input may use without the prefix containing them: 100 for percentages
 * ("400 / 1400 * 100", "1400 * 29 / 100"). Any other number must appear in the prefix.
 */
export const CALCULATOR_CONSTANTS: readonly number[] = [100];

/** The reason `call` leaks text from after its position, or null when its argument is derivable from `prefix`. */
export function leaks(call: ToolCall, prefix: string): string | null {
  switch (call.tool) {
    case 'Calculator':
      return calculatorLeak(call.input, prefix);
    case 'Translate':
      return translateLeak(call.input, prefix);
    case 'QA':
      return qaLeak(call.input, prefix);
    default:
      // Calendar takes no argument (its answer comes from the document's date); other tools are rejected by the
      // registry before this guard matters.
      return null;
  }
}

/** Every number in the input must appear in the prefix (as a value: "3,000,000" in the text covers "3000000"). */
function calculatorLeak(input: string, prefix: string): string | null {
  const known = new Set(numbersIn(prefix));
  const missing = [...new Set(numbersIn(input))].filter((v) => !known.has(v) && !CALCULATOR_CONSTANTS.includes(v));
  if (missing.length === 0) return null;
  return `Calculator input "${clip(input)}" uses ${missing.join(', ')}, not in the text before the call`;
}

/** Numeric values of the digit runs in `s`: thousands separators dropped, "$" and "%" ignored, signs ignored. */
function numbersIn(s: string): number[] {
  return [...s.matchAll(/\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+/g)].map((m) => Number(m[0].replace(/,/g, '')));
}

/** The span to translate must be text already read (case and spacing aside). */
function translateLeak(input: string, prefix: string): string | null {
  const span = normalize(input);
  if (span === '') return 'Translate input is empty';
  if (containsPhrase(normalize(prefix), span)) return null;
  return `Translate input "${clip(input)}" does not appear in the text before the call`;
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

function normalize(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** `phrase` occurs in `text` as whole words: "spain" is in "spain's economy", not in "spaniard". */
function containsPhrase(text: string, phrase: string): boolean {
  for (let i = text.indexOf(phrase); i !== -1; i = text.indexOf(phrase, i + 1)) {
    const before = text[i - 1] ?? ' ';
    const after = text[i + phrase.length] ?? ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}
