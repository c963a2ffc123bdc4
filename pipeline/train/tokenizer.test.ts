import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { readJsonl } from './data.ts';
import { trainBpe } from './tokenizer.ts';

const sample = readJsonl('corpus/sample.jsonl').map((d) => d.text);
const tok = trainBpe(sample, { vocabSize: 400 });

describe('trainBpe', () => {
  it('builds the requested vocabulary: 256 bytes, merges, <|endoftext|> last', () => {
    expect(tok.vocabSize).toBe(400);
    expect(tok.eosId).toBe(399);
    expect(tok.idToToken[tok.eosId]).toBe('<|endoftext|>');
  });

  it('keeps " [", "]", "->" single tokens, even inside call text', () => {
    for (const piece of [' [', ']', '->']) expect(tok.encode(piece)).toHaveLength(1);
    const ids = tok.encode('costs [Calculator(400 / 1400) -> 0.29] less');
    const tokens = ids.map((i) => tok.idToToken[i]);
    expect(tokens).toContain('->');
    expect(tokens).toContain(']');
  });

  it('with digitPairs, writes numbers as " d" + two-digit chunks and merges digits with nothing else', () => {
    const digits = trainBpe(sample, { vocabSize: 400, digitPairs: true });
    const pieces = (s: string): string[] => digits.encode(s).map((i) => digits.idToToken[i]);
    expect(pieces(' 48213')).toEqual(['Ġ4', '82', '13']);
    expect(pieces(' 0.29')).toEqual(['Ġ0', '.', '29']);
    for (const t of digits.idToToken) if (/[0-9]/.test(t)) expect(t).toMatch(/^(Ġ[0-9]|[0-9]{1,2})$/);
    expect(digits.decode(digits.encode('In 1790, 4 of 13 states.'))).toBe('In 1790, 4 of 13 states.');
  });

  it('round-trips text, including non-ASCII', () => {
    for (const text of [...sample.slice(0, 5), 'Zürich — 日本 [QA("x") -> y]\n\n  tabs\t']) {
      expect(tok.decode(tok.encode(text))).toBe(text);
    }
  });

  it('writes a tokenizer.json that Transformers.js loads offline and that encodes identically', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bpe-'));
    try {
      await writeFile(join(dir, 'tokenizer.json'), JSON.stringify(tok.toJSON()));
      await writeFile(join(dir, 'tokenizer_config.json'), JSON.stringify(tok.configJSON(128)));
      env.allowRemoteModels = false;
      const hf = await AutoTokenizer.from_pretrained(dir);
      for (const text of sample.slice(0, 10)) {
        expect(hf.encode(text, { add_special_tokens: false })).toEqual(tok.encode(text));
      }
      expect(hf.eos_token_id).toBe(tok.eosId);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
