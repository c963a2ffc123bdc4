import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TINY_MODEL, runCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';

/**
 * Inputs a user gets wrong and the CLI used to accept silently (issue 49 item 8), run as the user runs them: the
 * bundled model, real small texts, the CLI as a child process. `score`: where the call goes (--before a word, or an
 * --at that splits one: a warning), a tool it cannot run (named before the model loads); `export` without --format;
 * and where `annotate` says its data is (item 9).
 */
const TEXT = 'Languages: Hindi 41%, Bengali 8.1%, Telugu 7.2%.';
const CALL = 'QA("What language is spoken in India?")';
const score = (...flags: string[]) => runCli(['score', TEXT, '--call', CALL, ...flags], ROOT);

/** The four printed losses and the verdict: what `score` says about the call. */
const verdictLines = (stdout: string) => stdout.split('\n').filter((l) => /^(L_[abc] |usefulness = )/.test(l));

describe('toolformer score: where the call goes', { timeout: TEST_CAP_MS }, () => {
  it('--before <word> puts the call at the end of the word before it: the same losses as that --at', async () => {
    const [byWord, byOffset] = [await score('--before', 'Hindi'), await score('--at', String('Languages:'.length))];
    expect(byWord.stderr).toBe('');
    expect(byWord.code).toBe(0);
    expect(byWord.stdout).toContain(`text:   Languages:⟨[${CALL} -> `);
    expect(verdictLines(byWord.stdout)).toHaveLength(4);
    expect(verdictLines(byWord.stdout)).toEqual(verdictLines(byOffset.stdout));
  });

  it('an --at inside a word is scored as asked, with one warning line naming the word and the position before it', async () => {
    const at = TEXT.indexOf('Hindi') + 2;
    const { code, stdout, stderr } = await score('--at', String(at));
    expect(stderr).toBe(`toolformer: --at ${at} splits the word "Hindi" (Hi|ndi): the call is scored there as asked; the pipeline puts calls before a word (--before "Hindi" or --at 10)\n`);
    expect(stdout).toContain(`text:   Languages: Hi⟨[${CALL} -> `);
    expect(verdictLines(stdout)).toHaveLength(4);
    expect(code).toBe(0);
  });

  it('an --at at a word\'s edge says nothing more', async () => {
    const { code, stderr } = await score('--at', String(TEXT.indexOf(' 41%')));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it.each([
    ['neither --at nor --before', [], /^toolformer: say where the call goes: --at <offset> or --before <word>\n$/],
    ['both', ['--at', '10', '--before', 'Hindi'], /^toolformer: --at and --before both say where the call goes: give one\n$/],
    ['--before a word the text lacks', ['--before', 'Tamil'], /^toolformer: --before "Tamil": not in the text as a whole word\n$/],
    ['--before part of a word', ['--before', 'ndi'], /^toolformer: --before "ndi": not in the text as a whole word\n$/],
  ] as const)('%s: one line, exit 1, nothing printed', async (_name, flags, message) => {
    const { code, stdout, stderr } = await score(...flags);
    expect(stderr).toMatch(message);
    expect(stdout).toBe('');
    expect(code).toBe(1);
  });

  it('a --before word that occurs twice: one line says the first is used', async () => {
    const { code, stderr } = await runCli(['score', 'It cost 12 dollars, then 12 more.', '--call', 'Calculator(6 * 2)', '--before', '12'], ROOT);
    expect(stderr).toBe('toolformer: --before "12" occurs 2 times; the call goes before the first (character 8)\n');
    expect(code).toBe(0);
  });
});

describe('toolformer score: a tool it cannot run', { timeout: TEST_CAP_MS }, () => {
  it('names the tool and the ones it has, in one line, before loading the model', async () => {
    // The model does not exist: the tool is checked first, so its line is the one that comes.
    const { code, stdout, stderr } = await runCli(['score', 'It is sunny in Paris.', '--call', 'Weather(Paris)', '--before', 'sunny', '--model', 'no-such-model'], ROOT);
    expect(stderr).toBe('toolformer: unknown tool "Weather" in --call: the tools are Calculator, QA, Calendar, Translate\n');
    expect(stdout).toBe('');
    expect(code).toBe(1);
  });
});

describe('toolformer annotate\'s last lines, and export without --format', { timeout: TEST_CAP_MS }, () => {
  const tmp = mkdtempSync(join(tmpdir(), 'input-checks-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  beforeAll(async () => {
    writeFileSync(join(tmp, 'corpus.jsonl'), '{"id":"a","text":"We paid 30 dollars for 3 books, 10 dollars each."}\n');
    const run = await runCli(['annotate', 'corpus.jsonl', '--model', TINY_MODEL, '--out', 'run', '--tools', 'Calculator', '--no-lm-proposals', '--quiet', '--workers', '1'], tmp);
    expect(run.code).toBe(0);
    // annotate's last lines (issue 49 item 9): where the data is and how to look at it.
    expect(run.stdout.trimEnd().split('\n').slice(-2)).toEqual([
      'wrote run/: train.jsonl (the finetuning data: 0 documents with their kept calls inlined), calls.jsonl (every candidate call with its losses and the reason it was kept or dropped), errors.jsonl, stats.json, config.json',
      "look at it: `npm run web`, then open run/calls.jsonl in the page's run viewer; `toolformer export run` makes it a Hub dataset (Parquet)",
    ]);
  }, TEST_CAP_MS);

  it('writes Parquet, the default its help names', async () => {
    const help = await runCli(['export', '--help'], tmp);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--format <parquet\|chat\|text> .*\(default: "parquet"\)/);
    const { code, stdout, stderr } = await runCli(['export', 'run'], tmp);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^exported \d+ documents, \d+ calls to .*run\/export\/parquet: data\/train-00000-of-00001\.parquet, README\.md\n$/);
    expect(readdirSync(join(tmp, 'run/export/parquet/data'))).toEqual(['train-00000-of-00001.parquet']);
    expect(code).toBe(0);
  });
});
