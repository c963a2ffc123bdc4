import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CausalLM } from '../lm/lm.ts';
import { ToolExecutor } from '../stages/execute.ts';
import { generate, inTopK, stripCalls } from './generate.ts';
import { FakeLM } from '../testing/fake-lm.ts';
import { calculator } from '../tools/calculator/index.ts';
import { calendar } from '../tools/calendar/index.ts';
import { ToolRegistry } from '../tools/registry.ts';

/**
 * A character LM that follows a script: after `prompt` it writes `script` one character at a time, where " ["
 * has probability pOpen (the rest of the mass on the script's next character). After the script ends it writes
 * spaces.
 */
function scripted(prompt: string, script: string, pOpen: number, follow: Record<string, string> = {}): FakeLM {
  return new FakeLM((context, next) => {
    if (!context.startsWith(prompt)) return undefined;
    let rest = context.slice(prompt.length);
    // After an inserted result, continue with the text that follows it in `follow`.
    for (const [after, then] of Object.entries(follow)) {
      const i = rest.indexOf(after);
      if (i >= 0) {
        const done = rest.slice(i + after.length);
        const want = then[done.length] ?? ' ';
        return next === want ? 0.9 : undefined;
      }
    }
    if (rest.length === 0 && next === ' [') return pOpen;
    if (rest.startsWith(' [')) rest = rest.slice(2);
    const want = script.startsWith(rest) ? script[rest.length] ?? ' ' : ' ';
    if (next === want) return 0.9 - (rest.length === 0 ? pOpen : 0);
    return undefined;
  });
}

const executor = () => new ToolExecutor(new ToolRegistry([calculator, calendar]));

describe('generate (paper §4)', () => {
  it('starts a call when " [" is in the top k, runs it at "->", inserts the result and "]", and goes on', async () => {
    const lm = scripted('In all, Tom has', 'Calculator(37 + 48) -> 1', 0.05, { '85]': ' 85 apples.' });
    const g = await generate(lm, executor(), 'In all, Tom has', { maxNewTokens: 60 });
    expect(g.calls).toEqual([{ tool: 'Calculator', input: '37 + 48', result: '85', raw: 'Calculator(37 + 48)' }]);
    expect(g.text.startsWith(' [Calculator(37 + 48) -> 85] 85 apples.')).toBe(true);
    expect(g.answerText.startsWith('85 apples.')).toBe(true);
  });

  it('with tools off (or k too small) " [" is never emitted', async () => {
    const lm = scripted('In all, Tom has', 'Calculator(37 + 48) -> 1', 0.05);
    const off = await generate(lm, executor(), 'In all, Tom has', { maxNewTokens: 10, tools: false });
    expect(off.calls).toEqual([]);
    expect(off.text).not.toContain('[');
    // p(" [") = 0.05 is the second most likely token; top-1 does not start a call.
    const k1 = await generate(lm, executor(), 'In all, Tom has', { maxNewTokens: 10, topK: 1 });
    expect(k1.calls).toEqual([]);
  });

  it('records an unparsable or failing call and inserts an empty result', async () => {
    const lm = scripted('x', 'Calculator(2 +) -> q', 0.5);
    const g = await generate(lm, executor(), 'x', { maxNewTokens: 40 });
    expect(g.calls).toHaveLength(1);
    expect(g.calls[0].result).toBeUndefined();
    expect(g.calls[0].error).toBeTruthy();
    expect(g.text.startsWith(' [Calculator(2 +) -> ]')).toBe(true);
  });

  it('passes the document date to the Calendar and stops calling after maxCalls', async () => {
    const lm = scripted('Date:', 'Calendar() -> T', 0.5);
    const g = await generate(lm, executor(), 'Date:', { maxNewTokens: 80, doc: { id: 'd', date: '2019-03-14' } });
    expect(g.calls.map((c) => c.result)).toEqual(['Today is Thursday, March 14, 2019.']);
    expect(g.text).toContain(' [Calendar() -> Today is Thursday, March 14, 2019.]');
  });

  it('streams the pieces in order and they add up to the text', async () => {
    const lm = scripted('In all, Tom has', 'Calculator(37 + 48) -> 1', 0.05, { '85]': ' 85.' });
    const pieces: { kind: string; text: string }[] = [];
    const g = await generate(lm, executor(), 'In all, Tom has', { maxNewTokens: 50, onText: (p) => pieces.push(p) });
    expect(pieces.map((p) => p.text).join('')).toBe(g.text);
    expect(pieces.map((p) => p.kind)).toContain('call');
    expect(pieces.find((p) => p.kind === 'result')?.text).toBe(' 85]');
  });

  it('stripCalls and inTopK', () => {
    expect(stripCalls(' [QA("What is the capital of Peru?") -> Lima] Lima is nice')).toBe('Lima is nice');
    expect(stripCalls('a [Calc(1\\]) -> 2] b')).toBe('a b');
    const logits = Float32Array.from([5, 4, 3, 2, 1]);
    expect(inTopK(logits, 2, 3)).toBe(true);
    expect(inTopK(logits, 3, 3)).toBe(false);
  });
});

describe('OrtCausalLM.openDecoder (KV cache) on models/tiny-random', () => {
  it('gives the same next-token log-probs as teacher-forced scoring, fed one token or several at a time', async () => {
    const { loadModel } = await import('../../node/model/load-model.ts');
    const { TINY_RANDOM_DIR } = await import('../../onnx-export/tiny-random.ts');
    const lm = await loadModel(TINY_RANDOM_DIR);
    const ids = lm.encode('The capital of Peru is Lima, a city.').slice(0, 12);
    const [scored] = await lm.score([{ ids }]);
    const logSoftmax = (row: Float32Array, id: number) => {
      let max = -Infinity;
      for (const x of row) max = Math.max(max, x);
      let sum = 0;
      for (const x of row) sum += Math.exp(x - max);
      return row[id] - max - Math.log(sum);
    };
    const state = await lm.openDecoder!(ids.slice(0, 3));
    expect(state.length).toBe(3);
    expect(logSoftmax(state.logits, ids[3])).toBeCloseTo(scored.tokenLogProbs[3], 4);
    await state.feed([ids[3]]);
    expect(logSoftmax(state.logits, ids[4])).toBeCloseTo(scored.tokenLogProbs[4], 4);
    await state.feed(ids.slice(4, 9)); // several tokens in one forward pass on the cache
    expect(state.length).toBe(9);
    expect(logSoftmax(state.logits, ids[9])).toBeCloseTo(scored.tokenLogProbs[9], 4);
    await expect(state.feed(new Array(lm.maxLength).fill(ids[0]))).rejects.toThrow(/at most/);
    await lm.release();
  });
});

describe('generate stops on the end token, not the start token (models/tiny-qwen2: BOS 263, EOS 265)', () => {
  it('reads the end tokens from the model and steps past a BOS the model writes', async () => {
    const { loadModel } = await import('../../node/model/load-model.ts');
    const lm = await loadModel(join(import.meta.dirname, '../../../models/tiny-qwen2'));
    try {
      expect(lm.bosId).toBe(263);
      expect(lm.eosIds).toEqual([265]);
      // Greedy on "a x" (tools off), this random model writes its BOS (263) after 59 tokens and its EOS (265) a few
      // tokens later: the fed tokens (everything after the prompt) include the BOS, and the last logits pick the EOS.
      // Before CausalLM had eosIds, generate() stopped at the BOS.
      const fed: number[] = [];
      let last: Float32Array | null = null;
      const open = lm.openDecoder.bind(lm);
      const watched: CausalLM = {
        id: lm.id, maxLength: lm.maxLength, bosId: lm.bosId, eosIds: lm.eosIds,
        encode: (t) => lm.encode(t), decode: (ids) => lm.decode(ids), score: (b) => lm.score(b), sample: (p, o) => lm.sample(p, o),
        openDecoder: async (prompt) => {
          const state = await open(prompt);
          return {
            get logits() { return (last = state.logits); },
            get length() { return state.length; },
            feed: async (ids) => { fed.push(...ids); await state.feed(ids); },
            release: () => state.release?.(),
          };
        },
      };
      const g = await generate(watched, null, 'a x', { maxNewTokens: 100, tools: false });
      expect(g.stopped).toBe('eos');
      expect(fed).toContain(263);
      expect(fed).not.toContain(265);
      expect(g.tokens).toBe(fed.length);
      let best = 0;
      for (let v = 1; v < last!.length; v++) if (last![v] > last![best]) best = v;
      expect(best).toBe(265);
    } finally {
      await lm.release();
    }
  });
});
