/** Phrase helpers shared by the tools' leakage rules and the default one (core/stages/leakage.ts). */

/** Spacing collapsed, trimmed, lower case. */
export function normalize(s: string): string {
  return s.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** At most 60 characters, for messages. */
export function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** `phrase` occurs in `text` as whole words: "spain" is in "spain's economy", not in "spaniard". */
export function containsPhrase(text: string, phrase: string): boolean {
  for (let i = text.indexOf(phrase); i !== -1; i = text.indexOf(phrase, i + 1)) {
    const before = text[i - 1] ?? ' ';
    const after = text[i + phrase.length] ?? ' ';
    if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after)) return true;
  }
  return false;
}
