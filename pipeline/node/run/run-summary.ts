/**
 * The summary `annotate` prints at the end of a run, as text: one line of counts, the per-tool table and the
 * reasons. A pure function of stats.json (and the run's wall time), so `npm run docs` renders the README's copy of
 * `npm start`'s output from the recorded stats instead of a pasted one.
 */
import type { RunStats } from '../../core/stats.ts';

/**
 * One stderr line naming the documents whose search the budget cut (stats.json `searchBudget`), '' when none was:
 * `toolformer: searched the first 8192 tokens of 2 documents (1,234 characters after the cuts not searched; pass
 * --max-doc-tokens to change): a, b`.
 */
export function searchBudgetLine(stats: Pick<RunStats, 'searchBudget'>, maxDocTokens: number | null): string {
  const cut = stats.searchBudget;
  if (!cut || cut.docs === 0) return '';
  const ids = `${cut.first.join(', ')}${cut.docs > cut.first.length ? `, … (${cut.docs - cut.first.length} more)` : ''}`;
  const docs = `${cut.docs} document${cut.docs === 1 ? '' : 's'}`;
  return `toolformer: searched only the first ${maxDocTokens ?? '?'} tokens of ${docs} (${cut.charsNotSearched.toLocaleString('en-US')} characters after the cuts not searched, still written out; --max-doc-tokens changes the budget): ${ids}`;
}

/** A plain table: the first column left-aligned, the others right-aligned, two spaces apart. */
export function alignedTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const width = header.map((_, j) => Math.max(...all.map((r) => [...(r[j] ?? '')].length)));
  const pad = (cell: string, j: number) => {
    const fill = ' '.repeat(width[j] - [...cell].length);
    return j === 0 ? cell + fill : fill + cell;
  };
  return all.map((r) => r.map(pad).join('  ').trimEnd()).join('\n');
}

/** The grid's ranges explained, when a --tau-f-floor above a grid τ_f left some calls without L_b. */
const undecidedNote = (stats: RunStats) =>
  Object.values(stats.tools).some((s) => s.reachTauF.some((k) => k.undecided > 0))
    ? '; a range a–b: b − a calls had L_b skipped below --tau-f-floor and may reach it'
    : '';

/**
 * Lines of the summary. "≥ τ_f" is at each tool's own τ_f; the counterfactual control then drops some of those
 * ("control", negative), so ≥ τ_f + control = kept. The grid columns are the survival curve at other τ_f, before the
 * control.
 */
export function runSummary(stats: RunStats, seconds: number): string[] {
  const grid = Object.values(stats.tools)[0]?.reachTauF.map(({ tauF }, i) => (i === 0 ? `≥ τ_f=${tauF}` : String(tauF))) ?? [];
  const header = ['tool', 'docs', 'positions', 'lm calls', 'programmatic calls', 'scored', '≥ τ_f', 'control', 'kept', 'inlined', ...grid];
  const rows = Object.entries(stats.tools).map(([tool, s]) => {
    const belowControl = s.reasons.below_control ?? 0;
    const counts = [s.docs, s.positions.total, s.byProposer.lm, s.byProposer.programmatic, s.scored, s.kept + belowControl, -belowControl, s.kept, s.inlined];
    // A grid τ_f below the run's --tau-f-floor may have calls whose L_b was skipped: the count is a range.
    const reach = s.reachTauF.map((k) => (k.undecided > 0 ? `${k.calls}–${k.calls + k.undecided}` : String(k.calls)));
    return [tool, ...counts.map((n) => (Object.is(n, -0) ? '0' : String(n))), ...reach];
  });
  const reasons = Object.entries(stats.tools).map(([tool, s]) => `${tool}: ${Object.entries(s.reasons).map(([r, n]) => `${r} ${n}`).join(', ')}`);
  return [
    `${stats.docsRead} documents read, ${stats.badRecords} bad records, ${stats.docsWithKeptCall} documents with a kept call, ${seconds.toFixed(1)} s`,
    alignedTable(header, rows),
    `(≥ τ_f at each tool's own τ_f, then the counterfactual control's drops; inlined: the kept calls written into train.jsonl — one per position, the most useful; the τ_f grid counts before the control${undecidedNote(stats)})`,
    `reasons — ${reasons.join(' | ')}`,
  ];
}

/**
 * The last lines `annotate` prints: where the run's files are, what each holds, and how to look at them (the web
 * app's run viewer reads calls.jsonl, not train.jsonl). train.jsonl holds the documents with a kept call.
 */
export function runFilesLines(out: string, stats: Pick<RunStats, 'docsWithKeptCall'>): string[] {
  const docs = `${stats.docsWithKeptCall} document${stats.docsWithKeptCall === 1 ? '' : 's'}`;
  return [
    `wrote ${out}/: train.jsonl (the finetuning data: ${docs} with their kept calls inlined), calls.jsonl (every candidate call with its losses and the reason it was kept or dropped), errors.jsonl, stats.json, config.json`,
    `look at it: \`npm run web\`, then open ${out}/calls.jsonl in the page's run viewer; \`toolformer export ${out}\` makes it a Hub dataset (Parquet)`,
  ];
}
