import { describe, expect, it } from 'vitest';
import type { SideRun } from './old-vs-new-format.ts';
import { sideTotals, slicedLines, type SlicedOldVsNew, type SliceRun } from './old-vs-new-sliced-format.ts';
import { sliceDocuments } from './old-vs-new-sliced.ts';

/** A side's run whose one process spent `probe` and `score` CPU seconds (wall = CPU / 2) in those stages. */
function side(s: 'old' | 'new', { probe, score, kept, rss }: { probe: number; score: number; kept: number; rss: number }): SideRun {
  const stage = (cpu: number) => ({ cpuSeconds: cpu, wallSeconds: cpu / 2, calls: 1, peakRssMiB: rss });
  return {
    side: s, root: s, docs: 2, wallSeconds: (probe + score) / 2 + 1, cpuSeconds: probe + score + 3, peakRssMiB: rss, scored: 10, keptCalls: kept,
    callOnlyScored: s === 'old' ? 10 : 4, positionsScored: 3,
    processes: [{ pid: 1, worker: false, stages: { probe: stage(probe), score: stage(score) }, cpuSeconds: probe + score + 3, cpuSecondsAtFirstLm: 1, peakRssMiB: rss }],
  };
}
const slice = (k: number, old: SideRun, neu: SideRun): SliceRun => ({
  slice: k, date: `2026-12-0${k}T10:00:00.000Z`, machine: 'linux x64, 2 cores, load 1.0–2.0', order: ['old', 'new'], old, new: neu, keptIdentical: old.keptCalls === neu.keptCalls, trainIdentical: true,
});

describe('the sliced old-against-new bench', () => {
  const slices = [
    slice(1, side('old', { probe: 600, score: 1000, kept: 2, rss: 6000 }), side('new', { probe: 10, score: 500, kept: 2, rss: 900 })),
    slice(2, side('old', { probe: 620, score: 1200, kept: 1, rss: 6100 }), side('new', { probe: 12, score: 700, kept: 1, rss: 880 })),
  ];

  it('sums the slices and counts the probes once: every slice after the first has its probe CPU and wall taken out', () => {
    const old = sideTotals(slices, 'old');
    expect(old.cpuAsRun).toBe(1603 + 1823);
    expect(old.cpu).toBe(1603 + 1823 - 620);
    expect(old.wallAsRun).toBe(801 + 911);
    expect(old.wall).toBe(801 + 911 - 310);
    expect(old.stages.probe.cpuSeconds).toBe(600);
    expect(old.stages.score.cpuSeconds).toBe(2200);
    expect(old.peakRssMiB).toBe(6100);
    expect(old.sequences).toBe(2 * (3 + 10 + 10));
    expect(sideTotals(slices, 'new').sequences).toBe(2 * (3 + 10 + 4));
  });

  it('says how many slices are measured and where the next run resumes; refuses to call a partial run complete', () => {
    const r: SlicedOldVsNew = { name: 't', command: 'c', model: 'm', modelFileMiB: 621, modelSha256: '0'.repeat(64), inputs: ['a.jsonl', 'b.jsonl'], docs: 200, sliceDocs: 40, oldCommit: 'cbf4dc3', newCommit: 'abc1234', slices: slices.slice(0, 1) };
    const partial = slicedLines(r).join('\n');
    expect(partial).toContain('**1 of 5 slices measured** (40 of 200 documents)');
    expect(partial).toContain('resumes at slice 2');
    expect(partial).toContain(`| CPU s, the process trees (probes once) | 1,603.0 | 513.0 | ${(1603 / 513).toFixed(2)}× |`);
    const two = slicedLines({ ...r, docs: 80 , slices }).join('\n');
    expect(two).toContain('All 2 slices measured');
    expect(two).toContain('Kept calls identical in every slice (3 and 3 in all)');
  });

  it('takes the first docs / inputs of each input in turn', () => {
    const a = ['{"id":"a1"}', '{"id":"a2"}', '{"id":"a3"}'].join('\n') + '\n';
    const b = ['{"id":"b1"}', '', '{"id":"b2"}'].join('\n');
    expect(sliceDocuments([a, b], 4)).toEqual(['{"id":"a1"}', '{"id":"b1"}', '{"id":"a2"}', '{"id":"b2"}']);
    expect(sliceDocuments([a, b], 3)).toEqual(['{"id":"a1"}', '{"id":"b1"}', '{"id":"a2"}']);
  });
});
