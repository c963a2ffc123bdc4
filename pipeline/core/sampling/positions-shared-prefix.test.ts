import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CausalLM, ScoreRequest } from '../lm/lm.ts';
import type { OrtCausalLM } from '../lm/ort-lm.ts';
import { loadModel } from '../../node/model/load-model.ts';
import { TOOL_SPECS } from '../tools/registry.ts';
import { positionScores, selectPositions } from './positions.ts';

/**
 * p_i with the fixed prompt's KV cache shared across windows and the LM head only on the window's rows (issue 28
 * item 3) against p_i as before, every window forwarded whole and every row through the head: the bundled model, each
 * tool's prompt, the first documents of corpus/sample.jsonl cut into several windows each.
 */
const ROOT = join(import.meta.dirname, '../../..');
const texts = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').slice(0, 3).map((l) => (JSON.parse(l) as { text: string }).text);
const options = { windowTokens: 48, batchSize: 8 };
let lm: OrtCausalLM;
let lmJs: OrtCausalLM;

/** The same model, its score() hints stripped: the whole of every request forwarded, every probe row read. */
const withoutHints = (model: CausalLM): CausalLM =>
  Object.assign(Object.create(model) as CausalLM, { score: (batch: readonly ScoreRequest[]) => model.score(batch.map(({ ids, probe, upTo }) => ({ ids, probe, upTo }))) });

beforeAll(async () => {
  lm = await loadModel(join(ROOT, 'models/default'));
  lmJs = await loadModel(join(ROOT, 'models/default'), { lm: { logProbs: 'js' } });
}, 120_000);
afterAll(async () => {
  await lm?.release();
  await lmJs?.release();
});

describe('p_i on a shared prefix cache', () => {
  it('equals p_i forwarded whole within 1e-5, with the same positions chosen, for every tool (head path)', async () => {
    expect(lm.logProbPath).toBe('head');
    let windows = 0;
    const before = lm.prefixForwards;
    for (const spec of TOOL_SPECS) {
      for (const text of texts) {
        const [shared, whole] = [await positionScores(lm, text, spec.prompt, options), await positionScores(withoutHints(lm), text, spec.prompt, options)];
        expect(shared.promptVariant).toBe(whole.promptVariant);
        expect(spec.prompt.variants[shared.promptVariant]('x')).not.toBe(''); // a prompt with a fixed part to share
        windows += new Set(shared.windows.map(String)).size;
        expect(shared.p.length).toBe(whole.p.length);
        let worst = 0;
        for (let i = 0; i < whole.p.length; i++) worst = Math.max(worst, Math.abs(shared.p[i] - whole.p[i]));
        expect(worst, `${spec.name}: most |Δp_i|`).toBeLessThanOrEqual(1e-5);
        expect(whole.p.some((p) => p > 1e-4)).toBe(true); // real probabilities, not zeros on both sides
        for (const [tauS, k] of [[0.05, 5], [0, 20], [0.001, 10]]) expect(selectPositions(shared, text, tauS, k)).toEqual(selectPositions(whole, text, tauS, k));
      }
    }
    // One prefix forward per tool's prompt (all windows of all documents on top of it), though there were many windows.
    expect(lm.prefixForwards - before).toBe(TOOL_SPECS.length);
    expect(windows).toBeGreaterThan(3 * TOOL_SPECS.length * 2);
  }, 300_000);

  it('and on the full-logits path (log-softmax in JavaScript)', async () => {
    const spec = TOOL_SPECS[0];
    const [shared, whole] = [await positionScores(lmJs, texts[0], spec.prompt, options), await positionScores(withoutHints(lmJs), texts[0], spec.prompt, options)];
    for (let i = 0; i < whole.p.length; i++) expect(Math.abs(shared.p[i] - whole.p[i])).toBeLessThanOrEqual(1e-5);
    expect(lmJs.prefixForwards).toBe(1);
  }, 120_000);
});
