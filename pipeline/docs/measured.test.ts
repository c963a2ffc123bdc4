import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLOSE, openMarker } from './blocks.ts';
import { handTypedProblems, handTypedReadmes } from './docs.ts';
import { HAND_TYPED_ALLOWED, handTypedNumbers, unallowedNumbers } from './measured.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'measured-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const numbers = (markdown: string) => handTypedNumbers(markdown).map((n) => n.text);

describe('measured numbers typed by hand in a README (issue 33 §3)', () => {
  it('finds times, rates, ratios, shares, memory and losses outside generated blocks', () => {
    const block = `${openMarker('results/x.md')}\n| wall 84.0 s | 1.38× | 538 MiB |\n${CLOSE}\n`;
    const text = [
      'Scoring took 12.4 s (0.43 documents/s, 140.9 calls/s, 29,094 tok/s): **1.19×** the limit, 49 % of the wall time.',
      'Peak RSS 652 MiB; losses agree within 2.2e-7 nats; 27 min for 30 documents; 1.22x faster; 42.2 CPU min.',
      block,
      '```',
      '3 documents read, 0 bad records, 0 documents with a kept call, 41.9 s',
      '```',
    ].join('\n');
    expect(numbers(text)).toEqual(['12.4 s', '0.43 documents/s', '140.9 calls/s', '29,094 tok/s', '1.19×', '49 %', '652 MiB', '2.2e-7 nats', '27 min', '1.22x', '42.2 CPU min', '41.9 s']);
    const hit = handTypedNumbers(text).find((n) => n.text === '41.9 s')!;
    expect(hit.line).toBe(8);
    expect(hit.context).toBe('3 documents read, 0 bad records, 0 documents with a kept call, 41.9 s');
  });

  it('does not count limits, targets, settings, input sizes, shapes, confidence levels or plain counts', () => {
    const text = [
      'A line over 10 MiB is refused; target ≤ 1.5× the file; the target of 2×; under 1 %; at least 20 % parse; up to 30 s.',
      '`--max-zstd-window` (8 MiB), `maxCallMs` 60 s, `--lock-ms`, default 30 s.',
      'On a 64 KB adversarial document and the 621 MiB file; 16 × 128 tokens; k 20 × m 10; 95 % Wilson intervals.',
      '3,298 calls scored in 30 documents, 2 cores, fp32, q4f16, 2026-12-01 05:10 UTC.',
    ].join('\n');
    expect(numbers(text)).toEqual([]);
  });

  it('an allowed phrase covers its numbers only, and one that covers none is reported', () => {
    const file = 'pipeline/x/README.md';
    const text = 'The fixture server sends 450 MB. The run took 450 MB of memory. The server\nsends 450 MB again.\n';
    const allowed = [
      { file, phrase: 'sends 450 MB', why: 'a fixture' },
      { file, phrase: 'sends 9 GB', why: 'gone' },
    ];
    const { numbers: left, staleAllowed } = unallowedNumbers(file, text, allowed);
    // The phrase matches across the line break too; only the run's own 450 MB is left.
    expect(left.map((n) => [n.line, n.text])).toEqual([[1, '450 MB']]);
    expect(left[0].at).toBe(text.indexOf('took 450 MB') + 'took '.length);
    expect(staleAllowed.map((a) => a.phrase)).toEqual(['sends 9 GB']);
  });

  it('the check fails on a planted number, a stale allowance and a pending file with nothing left; passes once fixed', () => {
    const put = (file: string, text: string) => {
      mkdirSync(dirname(join(tmp, file)), { recursive: true });
      writeFileSync(join(tmp, file), text);
    };
    put('pipeline/bench/README.md', `# bench\n\nThe scorer runs at 140.9 calls/s.\n\n${openMarker('pipeline/bench/results/x.md')}\n1.19×\n${CLOSE}\n`);
    put('pipeline/eval/README.md', '# eval\n\nNo numbers.\n');
    put('pipeline/bench/results/x.md', 'not a README: 99 s\n');
    put('README.md', 'The top README is checked too: 12 s\n');
    put('docs/notes.md', 'Not a checked README: 12 s\n');
    const allowed = [{ file: 'pipeline/bench/README.md', phrase: 'at 7 s', why: 'gone' }];
    const pending = { 'pipeline/eval/README.md': 'someone is on it' };
    const reports = handTypedReadmes(tmp, allowed, pending);
    expect(reports.map((r) => r.file)).toEqual(['README.md', 'pipeline/bench/README.md', 'pipeline/eval/README.md']);
    expect(handTypedProblems(reports)).toEqual([
      'README.md:1: "12 s" is a measured number typed by hand: generate it from its result file, or remove it',
      'pipeline/bench/README.md:3: "140.9 calls/s" is a measured number typed by hand: generate it from its result file, or remove it',
      'pipeline/bench/README.md: the allowed phrase "at 7 s" matches no number: remove it from pipeline/docs/measured.ts',
      'pipeline/eval/README.md: no hand-typed number left: remove it from HAND_TYPED_PENDING (pipeline/docs/measured.ts)',
    ]);
    put('README.md', 'The top README names no time.\n');
    put('pipeline/bench/README.md', `# bench\n\nThe scorer's rate is in the block below.\n\n${openMarker('pipeline/bench/results/x.md')}\n1.19×\n${CLOSE}\n`);
    expect(handTypedProblems(handTypedReadmes(tmp, [], {}))).toEqual([]);
    expect(() => handTypedReadmes(tmp, [], { 'pipeline/none/README.md': 'x' })).toThrow(/names pipeline\/none\/README\.md, which is not a checked README/);
  });

  it('no checked README (top, web/, models/, pipeline/**) has a measured number typed by hand, outside the pending files', () => {
    const reports = handTypedReadmes(ROOT);
    expect(reports.map((r) => r.file)).toEqual(expect.arrayContaining(['README.md', 'web/README.md', 'models/README.md', 'pipeline/bench/README.md']));
    expect(handTypedProblems(reports)).toEqual([]);
  });

  it('an allowed phrase that quotes constants of the code states their values', () => {
    /** `const NAME = 64 * 1024;` (or `export const`) in the file's text → its value; digits, `_` and `*` only. */
    const constant = (file: string, name: string) => {
      const m = new RegExp(`const ${name} = ([\\d_ *]+);`).exec(readFileSync(join(ROOT, file), 'utf8'));
      if (!m) throw new Error(`${file}: no \`const ${name} = <number>;\``);
      return m[1].split('*').reduce((p, x) => p * Number(x.trim().replace(/_/g, '')), 1);
    };
    const backed = HAND_TYPED_ALLOWED.filter((a) => a.constants);
    expect(backed.length).toBeGreaterThan(0);
    for (const a of backed) {
      const stated = [...a.phrase.matchAll(/\d+(?:\.\d+)?/g)].map((m) => Number(m[0]));
      expect({ phrase: a.phrase, values: a.constants!.map((c) => constant(c.file, c.name) / c.per) }).toEqual({ phrase: a.phrase, values: stated });
    }
    expect(() => constant('pipeline/docs/measured.ts', 'NO_SUCH_CONSTANT')).toThrow(/no `const NO_SUCH_CONSTANT/);
  });
});
