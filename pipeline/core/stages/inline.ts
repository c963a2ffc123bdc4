import type { Candidate } from '../candidates.ts';

/**
 * The finetuning text x* = x_{1:i−1}, e(c, r), x_{i:n} (paper §2): each kept call inlined at its position.
 * When several calls were kept at one position, one is inlined (inlinedAtEachPosition states the rule).
 * Square brackets already in the text ("[Laughter]", a literal `[X(…) -> …]`) become parentheses, so in the
 * finetuning data `[` only ever opens a call and a model never learns `" ["` from anything else; one character for
 * one, so every offset stays valid.
 */
export interface InlinedCall {
  tool: string;
  input: string;
  result: string;
  /** Character offset in the ORIGINAL text. */
  at: number;
  /** Character offset of the call's " [" in the inlined text. */
  inlinedAt: number;
  losses: NonNullable<Candidate['losses']>;
  usefulness: number;
}

/**
 * The rule for several kept calls at one position: x* holds one call per position, the most useful one there (the
 * largest min(L_a, L_b) − L_c); on a tie the first proposed. The others stay kept — in calls.jsonl (`inlined: false`)
 * and in the summary's kept count — but are not written into the text. In position order.
 */
export function inlinedAtEachPosition(kept: readonly Candidate[]): Candidate[] {
  const best = new Map<number, Candidate>();
  for (const c of kept) {
    const prev = best.get(c.at);
    if (!prev || (c.usefulness ?? -Infinity) > (prev.usefulness ?? -Infinity)) best.set(c.at, c);
  }
  return [...best.values()].sort((a, b) => a.at - b.at);
}

export function inlineCalls(
  text: string,
  kept: readonly Candidate[],
  format: (c: Candidate) => string,
): { text: string; calls: InlinedCall[] } {
  const chosen = inlinedAtEachPosition(kept);
  let out = '';
  let from = 0;
  const calls: InlinedCall[] = [];
  for (const c of chosen) {
    out += escapeBrackets(text.slice(from, c.at));
    calls.push({ tool: c.tool, input: c.input, result: c.result!, at: c.at, inlinedAt: out.length, losses: c.losses!, usefulness: c.usefulness! });
    out += ' ' + format(c);
    from = c.at;
  }
  return { text: out + escapeBrackets(text.slice(from)), calls };
}

/** "[Laughter]" → "(Laughter)": text outside calls never contains the call syntax's brackets. */
export function escapeBrackets(text: string): string {
  return text.replace(/\[/g, '(').replace(/\]/g, ')');
}
