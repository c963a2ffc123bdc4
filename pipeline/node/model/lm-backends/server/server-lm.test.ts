// The server backend against `toolformer serve` (serve.ts over the bundled model, in this process): the same
// log-probs, p_i and samples as the model in-process — through the exact extension and through vLLM's top-k alone —
// and a server whose tokenizer differs is refused in one line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canStillParse } from '../../../../core/call-syntax.ts';
import type { CausalLM, HiddenStateLM, ScoreRequest } from '../../../../core/lm/lm.ts';
import type { OrtCausalLM } from '../../../../core/lm/ort-lm.ts';
import { TINY_RANDOM_DIR } from '../../../../onnx-export/tiny-random.ts';
import { loadModel } from '../../load-model.ts';
import { DEFAULT_MODEL } from '../../../system/package-paths.ts';
import { serve, type RunningServer } from '../../../serve/serve.ts';
import { ServerLM, type ServerLMOptions } from './server-lm.ts';

const json = (dir: string, name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
const filesOf = (dir: string): ServerLMOptions['files'] => ({ tokenizer: json(dir, 'tokenizer.json'), config: json(dir, 'config.json') });

let local: OrtCausalLM;
let served: OrtCausalLM;
let withHidden: OrtCausalLM;
let server: RunningServer;
let exact: ServerLM;
let topK: ServerLM;

beforeAll(async () => {
  local = await loadModel(DEFAULT_MODEL);
  // As `toolformer serve` loads it: the model to score and sample, and the same with hidden states for the full
  // distributions prompt_logprobs k > 0 asks (serve-command.ts opens that one on first use).
  served = await loadModel(DEFAULT_MODEL);
  withHidden = await loadModel(DEFAULT_MODEL, { lm: { hiddenStates: true } });
  server = await serve({ lm: served, served: 'default', port: 0, distributions: async () => withHidden as unknown as HiddenStateLM });
  exact = await ServerLM.open({ baseUrl: server.url, files: filesOf(DEFAULT_MODEL) });
  // A client that uses only vLLM's protocol: p_i from prompt_logprobs' top 20.
  topK = await ServerLM.open({ baseUrl: server.url, files: filesOf(DEFAULT_MODEL), useExtensions: false });
});
afterAll(async () => {
  await server?.close();
  await Promise.all([local?.release(), served?.release(), withHidden?.release()]);
});

/** Scoring requests as the pipeline sends them: a probe (" [") on some, hints on some, BOS first. */
function requests(lm: CausalLM): ScoreRequest[] {
  const probe = lm.encode(' [')[0];
  const texts = [
    'Out of 1400 participants, 400 (or 29%) passed the test.',
    'The capital of France is Paris, and its population is about two million.',
    'On January 30, 2023, the committee met again.',
  ];
  const rows = texts.map((t) => [lm.bosId!, ...lm.encode(t)]);
  return [
    { ids: rows[0], probe },
    { ids: rows[1], probe },
    { ids: rows[2] },
    { ids: rows[1], from: 5, upTo: 12 },
  ];
}

/** The largest |a − b| over the positions a caller reads. */
function largestGap(a: Float32Array, b: Float32Array, from = 1, upTo = a.length): number {
  let most = 0;
  for (let t = from; t < upTo; t++) most = Math.max(most, Math.abs(a[t] - b[t]));
  return most;
}

describe('ServerLM over toolformer serve', () => {
  it('reads the model card: context length and the exact-probe extension', () => {
    expect(exact.maxLength).toBe(local.maxLength);
    expect(exact.bosId).toBe(local.bosId);
    expect(exact.eosIds).toEqual(local.eosIds);
    expect(exact.encode(' [Calculator(2 + 2)]')).toEqual(local.encode(' [Calculator(2 + 2)]'));
  });

  it('scores as the model in-process: token log-probs and p_i within 1e-4 nats (exact extension)', async () => {
    const batch = requests(local);
    const [mine, theirs] = [await local.score(batch), await exact.score(batch)];
    batch.forEach((r, i) => {
      expect(largestGap(mine[i].tokenLogProbs, theirs[i].tokenLogProbs, r.from ?? 1, r.upTo)).toBeLessThan(1e-4);
      if (r.probe !== undefined) expect(largestGap(mine[i].probeLogProbs!, theirs[i].probeLogProbs!, 0)).toBeLessThan(1e-4);
    });
    expect(exact.boundedPositions).toBe(0);
  });

  it("vLLM's top-k alone: exact where p_i ≥ 1/20, an upper bound below log(1/20) elsewhere", async () => {
    // A probe the bundled base model often gives ≥ 1/20 (" [" it rarely does): the rule is the same for any token.
    const comma = local.encode(',')[0];
    const batch = requests(local).filter((r) => r.probe !== undefined).map((r) => ({ ...r, probe: comma }));
    const [mine, theirs] = [await local.score(batch), await topK.score(batch)];
    let exactAt = 0;
    batch.forEach((_, i) => {
      expect(largestGap(mine[i].tokenLogProbs, theirs[i].tokenLogProbs)).toBeLessThan(1e-4);
      const [p, q] = [mine[i].probeLogProbs!, theirs[i].probeLogProbs!];
      for (let t = 0; t < p.length; t++) {
        if (p[t] >= Math.log(1 / 20)) {
          expect(Math.abs(p[t] - q[t])).toBeLessThan(1e-4);
          exactAt++;
        } else {
          // Absent from the top 20: the bound is ≥ the true value and below log(1/20) (at most 20 tokens reach 1/20).
          expect(q[t]).toBeGreaterThanOrEqual(p[t] - 1e-4);
          if (Math.abs(p[t] - q[t]) > 1e-4) expect(q[t]).toBeLessThanOrEqual(Math.log(1 / 20) + 1e-6);
        }
      }
    });
    expect(exactAt).toBeGreaterThan(0); // both cases occur in these texts
    expect(topK.boundedPositions).toBeGreaterThan(0);
  });

  it('samples what the sampler in-process draws, with the same seed: stop string, n rows, and alive cutting a row', async () => {
    const prompt = [local.bosId!, ...local.encode('The result is [Calculator(')];
    for (const options of [
      { n: 5, maxNewTokens: 12, stop: ']', seed: 7, temperature: 1, topK: 40 },
      { n: 8, maxNewTokens: 10, stop: ']', seed: 3, temperature: 1, topK: 40, alive: canStillParse },
      { n: 2, maxNewTokens: 6, stop: ')', seed: 0, temperature: 0 },
    ]) {
      const mine = (await local.sample(prompt, options)).map(({ text, stopped }) => ({ text, stopped }));
      const theirs = await exact.sample(prompt, options);
      expect(theirs).toEqual(mine);
    }
  });

  it('a server whose tokenizer differs from the model folder is refused in one line', async () => {
    const error = await ServerLM.open({ baseUrl: server.url, files: filesOf(TINY_RANDOM_DIR) }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/the server's tokenizer differs from the model's tokenizer\.json on ".*".*pass the served model's own folder as --tokenizer/);
    expect((error as Error).message).not.toContain('\n');
  });

  it('prompt_logprobs k > 0 lists the top k with ranks 1..k, from the hidden-state logits', async () => {
    const ids = [local.bosId!, ...local.encode('The capital of France is')];
    const res = await fetch(`${server.url}/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'default', prompt: ids, max_tokens: 0, echo: true, prompt_logprobs: 3 }),
    });
    const body = (await res.json()) as { choices: { prompt_logprobs: (Record<string, { logprob: number; rank?: number }> | null)[] }[] };
    const entries = body.choices[0].prompt_logprobs;
    expect(entries[0]).toBeNull();
    const { logits, vocabSize } = await (withHidden as unknown as HiddenStateLM).hiddenStates(ids);
    for (let t = 1; t < ids.length; t++) {
      const ranked = Object.entries(entries[t]!).filter(([, v]) => v.rank !== undefined && v.rank !== null).sort((a, b) => a[1].rank! - b[1].rank!);
      expect(ranked.map(([, v]) => v.rank)).toEqual([1, 2, 3]);
      // Rank 1 is the arg-max of the row that predicts ids[t].
      const row = logits.subarray((t - 1) * vocabSize, t * vocabSize);
      expect(Number(ranked[0][0])).toBe(row.indexOf(Math.max(...row)));
    }
  });
});
