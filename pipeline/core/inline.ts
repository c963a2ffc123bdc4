import type { Candidate } from './candidates.ts';

/**
 * The finetuning text x* = x_{1:i−1}, e(c, r), x_{i:n} (paper §2): each kept call inlined at its position.
 * When several calls were kept at one position, the most useful one is inlined (ties: the first proposed).
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

export function inlineCalls(
  text: string,
  kept: readonly Candidate[],
  format: (c: Candidate) => string,
): { text: string; calls: InlinedCall[] } {
  const best = new Map<number, Candidate>();
  for (const c of kept) {
    const prev = best.get(c.at);
    if (!prev || (c.usefulness ?? -Infinity) > (prev.usefulness ?? -Infinity)) best.set(c.at, c);
  }
  const chosen = [...best.values()].sort((a, b) => a.at - b.at);
  let out = '';
  let from = 0;
  const calls: InlinedCall[] = [];
  for (const c of chosen) {
    out += text.slice(from, c.at);
    calls.push({ tool: c.tool, input: c.input, result: c.result!, at: c.at, inlinedAt: out.length, losses: c.losses!, usefulness: c.usefulness! });
    out += ' ' + format(c);
    from = c.at;
  }
  return { text: out + text.slice(from), calls };
}
