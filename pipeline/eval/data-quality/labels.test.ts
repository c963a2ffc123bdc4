import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_DIR, LabelFileError, loadLabelledSet } from './labels.ts';
import { evaluate, positionMatches, resultMatches } from './match.ts';

describe('the labelled set', () => {
  const set = loadLabelledSet();

  it('has ≥ 200 passages from both sources, a fixed dev/test split, and passages with and without labels', () => {
    expect(set.length).toBeGreaterThanOrEqual(200);
    for (const split of ['dev', 'test'] as const) {
      const part = set.filter((p) => p.split === split);
      expect(part.filter((p) => p.source.startsWith('sotu')).length).toBeGreaterThan(50);
      expect(part.filter((p) => p.source.startsWith('factbook')).length).toBeGreaterThan(50);
      expect(part.filter((p) => p.labels.length > 0).length).toBeGreaterThan(30);
      expect(part.filter((p) => p.labels.length === 0).length).toBeGreaterThan(30);
    }
    const tools = new Set(set.flatMap((p) => p.labels.map((l) => l.tool)));
    expect([...tools].sort()).toEqual(['Calculator', 'Calendar', 'QA', 'Translate']);
  });

  it('is scored perfectly by its own labels (each label taken as a kept call)', () => {
    const kept = set.flatMap((p) => p.labels.map((l) => ({ docId: p.id, tool: l.tool, input: l.call, result: l.result, at: l.at })));
    const { report, missed } = evaluate(set, kept);
    expect(missed).toEqual([]);
    expect(report.dev.all.precision).toBe(1);
    expect(report.test.all.recall).toBe(1);
  });
});

describe('a label file that does not parse', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dq-'));
  const passages = resolve(DATA_DIR, 'passages.jsonl');
  const broken = (name: string, edit: (lines: string[]) => void) => {
    const lines = readFileSync(resolve(DATA_DIR, 'labels.jsonl'), 'utf8').trimEnd().split('\n');
    edit(lines);
    const file = join(dir, name);
    writeFileSync(file, lines.join('\n') + '\n');
    return file;
  };
  const error = (file: string) => {
    try {
      loadLabelledSet(passages, file);
    } catch (e) {
      expect(e).toBeInstanceOf(LabelFileError);
      return (e as Error).message;
    }
    throw new Error('loaded');
  };

  it('is one line naming the file and line: bad JSON', () => {
    const f = broken('a.jsonl', (l) => (l[6] = l[6].slice(0, -1)));
    expect(error(f)).toMatch(/^a\.jsonl:7: not JSON/);
    expect(error(f)).not.toContain('\n');
  });

  it('names the field: an unknown tool, an offset whose text is not the anchor', () => {
    const i = readFileSync(resolve(DATA_DIR, 'labels.jsonl'), 'utf8').split('\n').findIndex((l) => l.includes('"Calculator"'));
    expect(error(broken('b.jsonl', (l) => (l[i] = l[i].replace('"tool":"Calculator"', '"tool":"Calc"'))))).toMatch(new RegExp(`^b\\.jsonl:${i + 1}: label 1: "tool" must be one of`));
    expect(error(broken('c.jsonl', (l) => (l[i] = l[i].replace(/"at":(\d+)/, (_, n) => `"at":${Number(n) + 3}`))))).toMatch(new RegExp(`^c\\.jsonl:${i + 1}: Calculator label at \\d+: the text there is`));
  });

  it('refuses a passage without a line', () => {
    expect(error(broken('d.jsonl', (l) => l.pop()))).toMatch(/^d\.jsonl: no line for 1 passage\(s\), first dq253/);
  });
});

describe('what counts as a match', () => {
  const text = 'Capital: name: Madrid; fees $36 and (Liberty)';
  it('position: the same token, after the whitespace before it', () => {
    expect(positionMatches(text, 14, 15)).toBe(true); // " Madrid" → "Madrid"
    expect(positionMatches(text, 13, 15)).toBe(false); // before ":"
    expect(positionMatches(text, text.indexOf('36'), text.indexOf('$36'))).toBe(true);
    expect(positionMatches(text, text.indexOf('Liberty'), text.indexOf('(Liberty'))).toBe(true);
  });

  const label = (tool: 'Calculator' | 'QA' | 'Calendar' | 'Translate', result: string, accept?: string[]) => ({ tool, at: 0, anchor: 'x', call: `${tool}()`, result, why: '', ...(accept ? { accept } : {}) });
  it('Calculator: equal at the label\'s precision', () => {
    expect(resultMatches('Calculator', '82487.3', label('Calculator', '82,487'))).toBe(true);
    expect(resultMatches('Calculator', '$82,487', label('Calculator', '82,487'))).toBe(true);
    expect(resultMatches('Calculator', '82488', label('Calculator', '82,487'))).toBe(false);
    expect(resultMatches('Calculator', '32.66', label('Calculator', '32.66'))).toBe(true);
    expect(resultMatches('Calculator', '32.7', label('Calculator', '32.66'))).toBe(false);
  });
  it('QA: the answer begins with the labelled one', () => {
    expect(resultMatches('QA', 'Port Louis', label('QA', 'Port Louis'))).toBe(true);
    expect(resultMatches('QA', '4,892,305 (July 2015 est.)', label('QA', '4,892,305'))).toBe(true);
    expect(resultMatches('QA', 'Grenada', label('QA', 'Granada'))).toBe(false);
    expect(resultMatches('QA', 'Frenchman', label('QA', 'French'))).toBe(false);
  });
  it('Calendar: the year, and no day the set does not know', () => {
    expect(resultMatches('Calendar', 'This is the year 1867.', label('Calendar', '1867'))).toBe(true);
    expect(resultMatches('Calendar', 'Today is Tuesday, January 1, 1867.', label('Calendar', '1867'))).toBe(false);
    expect(resultMatches('Calendar', 'This is the year 1866.', label('Calendar', '1867'))).toBe(false);
  });
  it('Translate: word F1 ≥ 0.5 with an accepted translation', () => {
    expect(resultMatches('Translate', 'Liberty', label('Translate', 'Liberty', ['Freedom']))).toBe(true);
    expect(resultMatches('Translate', 'freedom', label('Translate', 'Liberty', ['Freedom']))).toBe(true);
    expect(resultMatches('Translate', 'National hymn of Chile', label('Translate', 'National Anthem of Chile'))).toBe(true);
    expect(resultMatches('Translate', 'the house', label('Translate', 'Our Land'))).toBe(false);
  });
});
