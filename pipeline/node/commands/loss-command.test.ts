import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lossCommand } from './loss-command.ts';

describe('toolformer loss', () => {
  const dir = mkdtempSync(join(tmpdir(), 'loss-'));
  const input = join(dir, 'docs.jsonl');
  const docs = readFileSync('corpus/sample.jsonl', 'utf8').split('\n').filter(Boolean).slice(0, 6);
  writeFileSync(input, docs.join('\n') + '\n');

  it('scores at least the tokens asked for, and the mean is the token-weighted mean of the windows', async () => {
    const out = join(dir, 'loss.json');
    const r = await lossCommand({ model: 'models/tiny-random', input, tokens: 500, out });
    const saved = JSON.parse(readFileSync(out, 'utf8'));
    expect(saved.tokens).toBeGreaterThanOrEqual(500);
    expect(saved.meanNll).toBe(r.meanNll);
    expect(saved.perWindow).toHaveLength(saved.windows);
    // A random model of a 1024-token vocabulary is near ln(1024) ≈ 6.93 nats/token.
    expect(r.meanNll).toBeGreaterThan(5);
    // Same model, same input: the same windows and losses.
    const again = await lossCommand({ model: 'models/tiny-random', input, tokens: 500, out: join(dir, 'again.json') });
    expect(JSON.parse(readFileSync(join(dir, 'again.json'), 'utf8')).perWindow).toEqual(saved.perWindow);
    expect(again.meanNll).toBe(r.meanNll);
  });

  it('a record without a text is one clear error; too little text is another', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"id":"x"}\n');
    await expect(lossCommand({ model: 'models/tiny-random', input: bad, tokens: 10, out: join(dir, 'x.json') })).rejects.toThrow(/record 1 has no "text"/);
    await expect(lossCommand({ model: 'models/tiny-random', input, tokens: 10_000_000, out: join(dir, 'y.json') })).rejects.toThrow(/only \d+ tokens/);
  });
});
