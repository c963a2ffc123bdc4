import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { mulberry32 } from '../random/mulberry32.ts';
import { buildGpt2Onnx } from '../onnx-export/gpt2-graph.ts';
import { randomGpt2Weights } from '../onnx-export/gpt2-weights.ts';
import { readGpt2Onnx } from '../onnx-export/onnx-weights.ts';
import { CallWindows } from './cstar.ts';
import { Gpt2 } from './gpt2.ts';
import { BpeTokenizer } from './tokenizer.ts';

describe('finetune: base weights read back from ONNX', () => {
  it('readGpt2Onnx returns exactly the weights buildGpt2Onnx wrote, and the trainer loads them', () => {
    const config = { vocabSize: 50, nPositions: 16, nEmbd: 16, nLayer: 2, nHead: 2, layerNormEpsilon: 1e-5 };
    const weights = randomGpt2Weights(config, 3);
    const bytes = buildGpt2Onnx(config, weights);
    const json = { vocab_size: 50, n_positions: 16, n_embd: 16, n_layer: 2, n_head: 2, layer_norm_epsilon: 1e-5 };
    const back = readGpt2Onnx(bytes, json);
    expect(back.config).toEqual(config);
    expect([...back.weights.keys()].sort()).toEqual([...weights.keys()].sort());
    for (const [name, w] of weights) expect(back.weights.get(name)).toEqual(w);
    const model = new Gpt2(config, 16);
    model.loadWeights(back.weights);
    expect(model.param('h.1.mlp.c_fc.weight')).toEqual(weights.get('h.1.mlp.c_fc.weight'));
  });

  it('refuses a config.json that does not match the graph', () => {
    const config = { vocabSize: 50, nPositions: 16, nEmbd: 16, nLayer: 1, nHead: 2, layerNormEpsilon: 1e-5 };
    const bytes = buildGpt2Onnx(config, randomGpt2Weights(config, 1));
    expect(() => readGpt2Onnx(bytes, { vocab_size: 50, n_positions: 32, n_embd: 16, n_layer: 1, n_head: 2 })).toThrow(/dims/);
  });
});

describe('finetune: C* windows', () => {
  const tok = BpeTokenizer.fromJSON(JSON.parse(readFileSync('models/default/tokenizer.json', 'utf8')));
  const open = tok.encode(' [')[0];
  const records = [
    { id: 'a', text: 'The capital of Peru is [QA("What is the capital of Peru?") -> Lima] Lima.' },
    { id: 'b', text: 'No call in this one.' },
    { id: 'c', text: `${'Long text before the call. '.repeat(30)}In all, Tom has [Calculator(37 + 48) -> 85] 85.` },
  ];
  it('every row holds a call, is T+1 tokens, and starts with <|endoftext|> only at a text start', () => {
    const filler = () => Int32Array.from(tok.encode(' and so on'.repeat(40)));
    const w = new CallWindows(tok, records, 64, mulberry32(1), filler);
    expect(w.size).toBe(2); // the record without a call is skipped
    for (let i = 0; i < 50; i++) {
      const row = [...w.row()];
      expect(row).toHaveLength(65);
      expect(row).toContain(open);
      const text = tok.decode(row);
      if (row[0] === tok.eosId) expect(tok.decode(row.slice(1))).toMatch(/^(The capital|Long text)/);
      expect(text).toMatch(/\[(QA|Calculator)\(/);
    }
  });

  it('a text without a call is placed by its anchors (character offsets): the window holds the text there', () => {
    const filler = () => Int32Array.from(tok.encode(' and so on'.repeat(40)));
    const plain = `${'Long text before the place. '.repeat(30)}In all, Tom has 85 apples.`;
    const at = plain.indexOf(' 85 apples');
    const w = new CallWindows(tok, [{ id: 'd', text: plain, anchors: [at] }, { id: 'e', text: 'No call, no anchor.' }], 64, mulberry32(2), filler);
    expect(w.size).toBe(1);
    for (let i = 0; i < 30; i++) {
      const row = [...w.row()];
      expect(row).not.toContain(open);
      // The left context is 0..T−40 tokens, so the anchored place (" 85", ± a token where BPE merges across the
      // offset) is always inside the window.
      expect(tok.decode(row)).toContain(' 85 apples');
    }
  });
});
