import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCStar } from './cstar.ts';
import { readJsonl, splitDocs } from './data.ts';
import { finetune } from './finetune.ts';
import { readRunLog } from './run-log.ts';

/**
 * `finetune` reads its data like `annotate` does (issue 32 item 9): a bad record of --data or --corpus is reported
 * (file, line, reason) and skipped, the rest is read; a --corpus of six documents still has a validation part.
 */
const tmp = mkdtempSync(join(tmpdir(), 'finetune-bad-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const good = [
  '{"id":"c1","text":"The capital of Peru is [QA(\\"What is the capital of Peru?\\") -> Lima] Lima."}',
  '{"id":"c2","text":"In all, Tom has [Calculator(37 + 48) -> 85] 85 apples.","calls":[{"tool":"Calculator"}]}',
];
const data = join(tmp, 'data.jsonl');
writeFileSync(data, [good[0], 'null', '[]', '{"text":"no id [Calculator(1+1) -> 2] 2"}', '{"id":"n","text":null}', '{"id":"m","text":5}', '{"id":', '{"id":"x"}', '{"id":"k","text":"t","calls":[null]}', good[1], ''].join('\n'));
const corpusLines = readFileSync('corpus/sample.jsonl', 'utf8').split('\n').slice(0, 6);
const six = join(tmp, 'six.jsonl');
writeFileSync(six, [...corpusLines.slice(0, 3), '{"id":"bad","text":[1]}', ...corpusLines.slice(3), ''].join('\n'));

describe('bad records in --data and --corpus', () => {
  it('readCStar: each bad line named with its reason, the good records read', () => {
    const lines: string[] = [];
    const { records, badRecords } = readCStar([data], (line) => lines.push(line));
    expect(records.map((r) => r.id)).toEqual(['c1', 'c2']);
    expect(badRecords).toBe(8);
    expect(lines).toEqual([
      `finetune: ${data}:2: not a record (null); record skipped`,
      `finetune: ${data}:3: not a record (a list); record skipped`,
      `finetune: ${data}:4: no "id"; record skipped`,
      `finetune: ${data}:5: "text" is null, not a string; record skipped`,
      `finetune: ${data}:6: "text" is a number, not a string; record skipped`,
      expect.stringMatching(new RegExp(`^finetune: ${data}:7: not JSON \\(.+\\); record skipped$`)),
      `finetune: ${data}:8: "text" is missing, not a string; record skipped`,
      `finetune: ${data}:9: "calls" is not a list of {tool}; record skipped`,
    ]);
  });

  it('the corpus reader: a text that is not a string is reported; without a reporter it is a one-line error naming the line', () => {
    const bad: number[] = [];
    expect(readJsonl(six, (b) => bad.push(b.line))).toHaveLength(6);
    expect(bad).toEqual([4]);
    expect(() => readJsonl(six)).toThrow(new RegExp(`^${six}:4: "text" is a list, not a string$`));
  });

  it('splitDocs: six documents give a non-empty validation part; one document is a one-line error', () => {
    const docs = readJsonl(six, () => {});
    const { train, val } = splitDocs(docs);
    expect(val.length).toBeGreaterThan(0);
    expect(train.length).toBeGreaterThan(0);
    expect([...train, ...val].map((d) => d.id).sort()).toEqual(docs.map((d) => d.id).sort());
    expect(() => splitDocs(docs.slice(0, 1))).toThrow(/the corpus has 1 usable document: at least 2 are needed/);
  });

  it('finetune with a null line, records without an id or a text, and a six-document corpus: trains on the rest, reports each line', async () => {
    const work = join(tmp, 'work');
    const lines: string[] = [];
    await finetune({
      data: [data], base: 'models/default', out: join(work, 'model'), corpus: [six], work, mix: 0.4, upsample: 1, steps: 1, batch: 2,
      lr: 3e-4, warmup: 1, protect: 0.1, seed: 1, evalEvery: 100, ckptEvery: 100, minutes: 1e9, resume: false, export: false, quiet: true, rebuild: 'test',
    }, { echo: (line) => lines.push(line) });
    const reported = lines.filter((l) => l.startsWith('finetune: '));
    expect(reported).toHaveLength(9);
    expect(reported[0]).toBe(`finetune: ${data}:2: not a record (null); record skipped`);
    expect(reported.at(-1)).toBe(`finetune: ${six}:4: "text" is a list, not a string; record skipped`);
    const final = readRunLog(join(work, 'log.jsonl')).find((r) => r.event === 'final') as Record<string, any>;
    expect(final.step).toBe(1);
    expect(final.data).toMatchObject({ records: 2, badRecords: { data: 8, corpus: 1 } });
  }, 300_000);
});
