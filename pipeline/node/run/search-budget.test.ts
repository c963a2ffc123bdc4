import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../core/default-config.ts';
import type { CausalLM } from '../../core/lm/lm.ts';
import { createPipelineParts } from '../../core/stages/parts.ts';
import { adderTool } from '../../core/testing/adder-tool.ts';
import { type RunStats } from '../../core/stats.ts';
import { FakeLM } from '../../core/testing/fake-lm.ts';
import type { ToolSpec } from '../../core/tools/spec.ts';
import { runAnnotate } from './annotate-run.ts';
import { searchBudgetLine } from './run-summary.ts';
import { adversarialText } from '../testing/adversarial-doc.ts';

/**
 * The search budget (config.maxDocTokens) end to end: an adversarial document far over the budget costs the LM the
 * work of its searched part and no more — counted as tokens handed to the LM, not timed — while the run still writes
 * its whole text and counts the cut in stats.json.
 */

const head = 'The total of 12 and 30 is 42. ';

/** The adder test tool, proposed before every " 42" that follows "12 and 30 is". */
const adder: ToolSpec = adderTool({
  positions: (text) => [...text.matchAll(/ 42/g)].map((m) => m.index),
  propose: (prefix) => (prefix.endsWith('12 and 30 is') ? ['12 + 30'] : []),
  leaks: () => null,
});

/** A FakeLM that predicts "42" after "is " once it has seen "-> 42]", with every token it is handed counted. */
function countingLM() {
  const inner = new FakeLM((context, next) => {
    if (context.endsWith('is ')) return next === '4' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
    if (context.endsWith('is 4')) return next === '2' ? (context.includes('-> 42]') ? 0.9 : 0.01) : undefined;
    return undefined;
  });
  const work = { tokens: 0, forwards: 0 };
  const lm: CausalLM = {
    id: inner.id,
    maxLength: inner.maxLength,
    bosId: inner.bosId,
    eosIds: inner.eosIds,
    encode: (text) => inner.encode(text),
    decode: (ids) => inner.decode(ids),
    score: async (batch) => {
      work.forwards++;
      for (const r of batch) work.tokens += r.ids.length;
      return inner.score(batch);
    },
    sample: async (prompt, options) => {
      work.forwards++;
      work.tokens += (prompt.length + options.maxNewTokens) * options.n;
      return inner.sample(prompt, options);
    },
  };
  return { lm, work };
}

const tmp = mkdtempSync(join(tmpdir(), 'search-budget-'));

async function annotateDocs(name: string, docs: { id: string; text: string }[], maxDocTokens: number | null, lmContext: 'prompt' | 'bare' = 'prompt', resume = false) {
  const { lm, work } = countingLM();
  const parts = createPipelineParts({ lm, resources: {}, specs: [adder] });
  const input = join(tmp, `${name}.jsonl`);
  writeFileSync(input, docs.map((d) => JSON.stringify(d) + '\n').join(''));
  const config = defaultConfig({ tools: ['Add'], lmProposals: false, controlMargin: null, maxDocTokens, lmContext }, [adder]);
  const outDir = join(tmp, name);
  await runAnnotate(parts, { inputs: [input], outDir, meta: {}, config, resume });
  const lines = (file: string) => readFileSync(join(outDir, file), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const stats: RunStats = JSON.parse(readFileSync(join(outDir, 'stats.json'), 'utf8'));
  return { work, train: lines('train.jsonl'), calls: lines('calls.jsonl'), stats, config: JSON.parse(readFileSync(join(outDir, 'config.json'), 'utf8')) };
}

describe('the search budget (maxDocTokens) on a 64 KB adversarial document', () => {
  const budget = 512;
  // The 1 MiB document of the README's measurements at 1/14.4: 65,535 characters, and as many FakeLM tokens (one a character).
  const text = head + adversarialText(64 / 922.9);
  const small = { id: 'small', text: head + 'and that is all.' };

  it("bounds the LM's work by the budget: the same tokens as for the searched part alone, and written out whole", async () => {
    const run = await annotateDocs('huge', [{ id: 'huge', text }, small], budget);
    const cutAt = run.stats.searchBudget ? text.length - run.stats.searchBudget.charsNotSearched : text.length;
    // The searched part is the first `budget` tokens, back to a word boundary.
    expect(cutAt).toBeLessThanOrEqual(budget);
    expect(cutAt).toBeGreaterThan(budget / 2);
    expect(run.stats.searchBudget).toEqual({ docs: 1, charsNotSearched: text.length - cutAt, first: ['huge'] });
    expect(run.config.config.maxDocTokens).toBe(budget);

    // The same documents with the big one's searched part as a document of its own, and no budget: the same LM work.
    const alone = await annotateDocs('alone', [{ id: 'huge', text: text.slice(0, cutAt) }, small], null);
    expect(alone.stats.searchBudget).toBeUndefined();
    expect(run.work).toEqual(alone.work);
    // p_i over ~budget tokens (each window with its prompt, which contains the window) and three scored
    // sequences per call: a few times the budget, where the document's own 64k tokens would be 100 times it.
    expect(run.work.tokens).toBeGreaterThan(budget);
    expect(run.work.tokens).toBeLessThan(10 * budget);

    // Nothing after the cut was searched: no call proposed there, though the prose at the end has many " 42".
    expect(run.calls.every((c) => c.at <= cutAt)).toBe(true);
    expect(run.calls.filter((c) => c.docId === 'huge').map((c) => c.reason)).toEqual(['kept']);
    // The finetuning record holds the whole text, the kept call inlined in the searched part.
    const record = run.train.find((r) => r.id === 'huge');
    expect(record.calls.map((c: { input: string }) => c.input)).toEqual(['12 + 30']);
    expect(record.text.replace(' [Add(12 + 30) -> 42]', '')).toBe(text);
    // A document under the budget is searched whole, as before.
    expect(run.calls.filter((c) => c.docId === 'small').map((c) => c.reason)).toEqual(['kept']);
  }, 60_000);

  it('bounds it in the bare-text LM context too (one p_i over the searched part for all tools)', async () => {
    const run = await annotateDocs('huge-bare', [{ id: 'huge', text }], budget, 'bare');
    const cutAt = text.length - run.stats.searchBudget!.charsNotSearched;
    const alone = await annotateDocs('alone-bare', [{ id: 'huge', text: text.slice(0, cutAt) }], null, 'bare');
    expect(run.work).toEqual(alone.work);
    expect(run.work.tokens).toBeGreaterThan(budget);
    expect(run.work.tokens).toBeLessThan(10 * budget);
    expect(run.train[0].text.replace(' [Add(12 + 30) -> 42]', '')).toBe(text);
  }, 60_000);

  it('is part of the run config: --resume compares it, and a config.json from before the budget reads as none', async () => {
    const docs = [small];
    await annotateDocs('resume', docs, null);
    const configFile = join(tmp, 'resume', 'config.json');
    const record = JSON.parse(readFileSync(configFile, 'utf8'));
    expect(record.config.maxDocTokens).toBeNull();
    delete record.config.maxDocTokens; // as a run begun before the budget existed wrote it
    writeFileSync(configFile, JSON.stringify(record));
    await expect(annotateDocs('resume', docs, 8192, 'prompt', true)).rejects.toThrow(/maxDocTokens: null then, 8192 now.*--max-doc-tokens 0/);
    await expect(annotateDocs('resume', docs, null, 'prompt', true)).resolves.toBeDefined();
  });

  it('names the cut documents in one line, the first ten and a count of the rest', () => {
    const first = Array.from({ length: 10 }, (_, i) => `doc${i}`);
    expect(searchBudgetLine({ searchBudget: { docs: 12, charsNotSearched: 1_234_567, first } }, 8192)).toBe(
      `toolformer: searched only the first 8192 tokens of 12 documents (1,234,567 characters after the cuts not searched, still written out; --max-doc-tokens changes the budget): ${first.join(', ')}, … (2 more)`,
    );
    expect(searchBudgetLine({}, 8192)).toBe('');
  });
});
