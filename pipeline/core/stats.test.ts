import { describe, expect, it } from 'vitest';
import { type RunStats, SEARCH_BUDGET_IDS, emptyStats, mergeStats, withCurrentFields } from './stats.ts';

/** Every number in `stats` (nested), by path; `rate` fields excluded (they are ratios, not sums). */
function leaves(value: unknown, path = '', out = new Map<string, number>()): Map<string, number> {
  if (typeof value === 'number') {
    if (!path.endsWith('.rate') && !path.endsWith('.parseRate')) out.set(path, value);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) leaves(v, `${path}.${k}`, out);
  }
  return out;
}

/** Stats with every numeric leaf set from a seed, and a few keys in the open-ended maps. */
function filled(seed: number, extraKey: string): RunStats {
  const stats = emptyStats(['Calculator', 'QA']);
  let n = seed;
  const fill = (o: Record<string, unknown>) => {
    for (const [k, v] of Object.entries(o)) {
      if (typeof v === 'number' && k !== 'tauF') o[k] = n++;
      else if (v && typeof v === 'object') fill(v as Record<string, unknown>);
    }
  };
  for (const t of Object.values(stats.tools)) {
    t.prefilterDrops[extraKey] = 1;
    t.reasons.kept = 2;
    (t.reasons as Record<string, number>)[extraKey] = 3; // a kind this version does not know (an older run's stats)
  }
  stats.tokensScored = 0;
  stats.searchBudget = { docs: 0, charsNotSearched: 0, first: [`${extraKey}-doc`] };
  fill(stats as unknown as Record<string, unknown>);
  return stats;
}

describe('mergeStats', () => {
  it('sums every counter of RunStats and ToolStats (a field added to the stats but not to the merge fails here)', () => {
    const a = filled(1, 'few_numbers');
    const b = filled(1000, 'no_date');
    const total = mergeStats(mergeStats(emptyStats(['Calculator', 'QA']), a), b);
    const [la, lb, lt] = [leaves(a), leaves(b), leaves(total)];
    expect(lt.size).toBeGreaterThan(30);
    for (const [path, v] of lt) {
      if (path.endsWith('.tauF')) continue;
      expect(v, path).toBe((la.get(path) ?? 0) + (lb.get(path) ?? 0));
    }
    // Keys first seen in a come first, then those new in b: the order a single pass over the documents writes.
    expect(Object.keys(total.tools.QA.prefilterDrops)).toEqual(['few_numbers', 'no_date']);
    expect(total.searchBudget!.first).toEqual(['few_numbers-doc', 'no_date-doc']);
  });

  it('keeps the ids of the first SEARCH_BUDGET_IDS cut documents, in document order, and counts them all', () => {
    const chunk = (from: number) => {
      const s = emptyStats(['QA']);
      s.searchBudget = { docs: 8, charsNotSearched: 100, first: Array.from({ length: 8 }, (_, i) => `d${from + i}`) };
      return s;
    };
    const total = mergeStats(mergeStats(emptyStats(['QA']), chunk(0)), chunk(8));
    expect(total.searchBudget).toEqual({ docs: 16, charsNotSearched: 200, first: Array.from({ length: SEARCH_BUDGET_IDS }, (_, i) => `d${i}`) });
    // A chunk without cut documents adds nothing, and stats without any have no searchBudget (stats.json unchanged).
    expect(mergeStats(emptyStats(['QA']), emptyStats(['QA'])).searchBudget).toBeUndefined();
  });

  it('recomputes the hallucination rate from the summed counts', () => {
    const a = emptyStats(['QA']);
    const b = emptyStats(['QA']);
    Object.assign(a.hallucination, { lmCalls: 10, unknownTool: 1, schemaError: 0, rate: 0.1 });
    Object.assign(b.hallucination, { lmCalls: 30, unknownTool: 2, schemaError: 3, rate: 0.1667 });
    const total = mergeStats(mergeStats(emptyStats(['QA']), a), b);
    expect(total.hallucination).toEqual({ lmCalls: 40, unknownTool: 3, schemaError: 3, rate: 0.15 });
  });
});

describe('withCurrentFields', () => {
  it('gives an earlier version\'s stats reachTauF.undecided = 0 on a copy, and leaves what it cannot derive missing', () => {
    const old = emptyStats(['QA']) as unknown as { tools: { QA: { reachTauF: Record<string, unknown>[]; inlined?: number } } };
    for (const entry of old.tools.QA.reachTauF) delete entry.undecided;
    delete old.tools.QA.inlined;
    const upgraded = withCurrentFields(old) as RunStats;
    expect(upgraded.tools.QA.reachTauF.map((r) => r.undecided)).toEqual([0, 0, 0, 0, 0]);
    expect(upgraded.tools.QA.inlined).toBeUndefined();
    expect(old.tools.QA.reachTauF[0]).not.toHaveProperty('undecided');
    expect(withCurrentFields(null)).toBeNull();
  });
});
