import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../random/mulberry32.ts';
import { labelRecord, splitInlinedCalls, type ToolkenFeatures } from './examples.ts';
import { decodeToolkens, encodeToolkens, toolkenLogits, type Toolkens } from './file.ts';
import { evaluate, trainToolkens } from './train.ts';

const RECORD = 'Population: [QA("What is the population of Kyrgyzstan?") -> 5,664,939] 5,664,939 (July 2015 est.)\n' +
  'Total: [Calculator(2 + 3) -> 5] 5 sheep.';

/** One token per character (ids = char codes), BOS 0: offsets are character offsets. */
const chars = { encode: (s: string) => [...s].map((c) => c.charCodeAt(0)), decode: (ids: readonly number[]) => String.fromCharCode(...ids), bosId: 0, maxLength: 64 };

describe('splitInlinedCalls', () => {
  it('gives back the original text and each call with its offset in it', () => {
    const { plain, calls } = splitInlinedCalls(RECORD);
    expect(plain).toBe('Population: 5,664,939 (July 2015 est.)\nTotal: 5 sheep.');
    expect(calls).toEqual([
      { tool: 'QA', input: 'What is the population of Kyrgyzstan?', result: '5,664,939', at: 11 },
      { tool: 'Calculator', input: '2 + 3', result: '5', at: 45 },
    ]);
    expect(plain.slice(11)).toMatch(/^ 5,664,939/);
  });
});

describe('labelRecord (ToolkenGPT labels)', () => {
  it('puts the toolken where the call stood and masks the rest of its result; words keep their labels', () => {
    const [w] = labelRecord(chars, RECORD, ['Calculator', 'QA'], 7);
    const plain = splitInlinedCalls(RECORD).plain;
    expect(w.record).toBe(7);
    expect(w.ids).toEqual([0, ...chars.encode(plain.slice(0, 63))]); // BOS + a window of maxLength − 1
    // labels[p] is the target of position p, i.e. token p of the plain text (BOS shifts by one)
    expect(w.labels[11]).toEqual({ toolken: 1 }); // " 5,664,939" begins at 11 (the space): QA
    for (let t = 12; t < 21; t++) expect(w.labels[t]).toBeNull(); // "5,664,939": written by the tool
    expect(w.labels[21]).toEqual({ word: ' '.charCodeAt(0) });
    expect(w.labels[10]).toEqual({ word: ':'.charCodeAt(0) });
    expect(w.labels[45]).toEqual({ toolken: 0 });
    expect(w.labels[46]).toBeNull();
    expect(w.labels[47]).toEqual({ word: ' '.charCodeAt(0) });
  });
  it('with onlyToolkens every word label is masked', () => {
    const [w] = labelRecord(chars, RECORD, ['Calculator', 'QA'], 0, { onlyToolkens: true });
    expect(w.labels.filter((l) => l !== null)).toEqual([{ toolken: 1 }, { toolken: 0 }]);
  });
  it('a record without a call of the chosen tools gives no window', () => {
    expect(labelRecord(chars, RECORD, ['Calendar'], 0)).toEqual([]);
  });
});

describe('the toolkens file (safetensors layout)', () => {
  const t: Toolkens = { tools: ['QA', 'Calculator'], hiddenSize: 3, weights: Float32Array.of(1, 2, 3, -1, 0.5, 0.25), meta: { model: 'm', modelDigest: 'abc' } };
  it('reads back what it writes, and any safetensors reader finds the tensor', () => {
    const bytes = encodeToolkens(t);
    const back = decodeToolkens(bytes);
    expect(back).toEqual(t);
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect(headerLength % 8).toBe(0);
    const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)));
    expect(header.toolkens).toEqual({ dtype: 'F32', shape: [2, 3], data_offsets: [0, 24] });
    expect(bytes.length).toBe(8 + headerLength + 24);
    expect(Array.from(toolkenLogits(back, Float32Array.of(1, 1, 1), 0.5))).toEqual([6.5, 0.25]);
  });
  it('refuses a cut, mislabelled or foreign file in one line', () => {
    const bytes = encodeToolkens(t);
    expect(() => decodeToolkens(bytes.subarray(0, bytes.length - 4), 'f')).toThrow(/^f: the data is cut short/);
    expect(() => decodeToolkens(new Uint8Array(4), 'f')).toThrow(/^f: shorter than/);
    const other = encodeToolkens(t);
    const at = new TextDecoder('latin1').decode(other).indexOf('"F32"');
    other.set(new TextEncoder().encode('"F16"'), at);
    expect(() => decodeToolkens(other, 'f')).toThrow(/^f: dtype F16, not F32/);
  });
  it.each([
    ['NaN', NaN],
    ['+Infinity', Infinity],
    ['-Infinity', -Infinity],
  ])('refuses a %s weight, naming the row (issue 46: it was accepted and did nothing at any bias)', (_name, value) => {
    const weights = Float32Array.from(t.weights);
    weights[4] = value;
    expect(() => decodeToolkens(encodeToolkens({ ...t, weights }), 'f')).toThrow(new RegExp(`^f: weight 1,1 \\(tool "Calculator"\\) is ${String(value).replace('+', '')}, not a finite number`));
  });
  it('refuses a tool named twice', () => {
    expect(() => decodeToolkens(encodeToolkens({ ...t, tools: ['QA', 'QA'] }), 'f')).toThrow(/^f: metadata "tools" names "QA" twice/);
  });
});

/**
 * A planted set: 20 records, C = 8 hidden states; at toolken-k positions h carries +3 along axis k, at word positions noise only.
 * The vocabulary's log-sum-exp is 2 everywhere and word labels have logit 1.
 */
function planted(n: number, seed: number): ToolkenFeatures {
  const C = 8;
  const rng = mulberry32(seed);
  const f: ToolkenFeatures = { hiddenSize: C, hidden: new Float32Array(n * C), logSumExp: new Float32Array(n).fill(2), wordLogit: new Float32Array(n).fill(1),
    maxWordLogit: new Float32Array(n).fill(1.5), label: new Int32Array(n), record: new Int32Array(n), n };
  for (let i = 0; i < n; i++) {
    const slot = Math.floor(i / 20) % 10; // every record (i mod 20) gets both toolkens, 1 in 10 positions each
    const label = slot === 0 ? 0 : slot === 5 ? 1 : -1;
    f.label[i] = label;
    f.record[i] = i % 20;
    for (let c = 0; c < C; c++) f.hidden[i * C + c] = rng.next() - 0.5 + (label >= 0 && c === label ? 3 : 0);
  }
  return f;
}

describe('trainToolkens', () => {
  it('the loss falls on a planted set and the right toolken wins on held-out records', () => {
    const f = planted(2000, 3);
    const history: number[] = [];
    const r = trainToolkens(f, 2, { lr: 0.05, epochs: 8, seed: 1, onEpoch: (e) => history.push(e.valLoss!) });
    expect(r.positions).toEqual({ train: 1800, val: 200, trainToolken: 360, valToolken: 40 });
    const all = Array.from({ length: f.n }, (_, i) => i);
    const before = evaluate(Float32Array.from({ length: 16 }, () => 0), f, 2, all);
    const after = evaluate(r.weights, f, 2, all);
    expect(after.loss).toBeLessThan(before.loss - 0.1);
    expect(history[history.length - 1]).toBeLessThan(history[0]);
    expect(r.history[r.bestEpoch - 1].valToolkenRecall).toBe(1);
    expect(r.history[r.bestEpoch - 1].valFalseFire).toBeLessThan(0.05);
  });
  it('is the same for the same seed and differs for another', () => {
    const f = planted(400, 4);
    const a = trainToolkens(f, 2, { epochs: 2, seed: 5 });
    expect(trainToolkens(f, 2, { epochs: 2, seed: 5 }).weights).toEqual(a.weights);
    expect(trainToolkens(f, 2, { epochs: 2, seed: 6 }).weights).not.toEqual(a.weights);
  });
  it('refuses data without a labelled position', () => {
    expect(() => trainToolkens({ ...planted(10, 1), n: 0 }, 2)).toThrow(/no labelled positions/);
  });
});
