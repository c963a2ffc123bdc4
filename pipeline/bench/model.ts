/**
 * The models the benchmark runs on: the project's `models/default/` when it is there, and a representative
 * random-weight GPT-2, the size first measured for this project (4 layers × 128 wide, 4 heads, vocab 4,096,
 * ≈ 1.4M parameters + embeddings) with a byte-level BPE tokenizer learned here from the corpus, so token counts
 * and the [B, T, 4096] logits cost what the real model's do. Random weights change no timing, only the verdicts.
 *
 * The generated model is cached in out/bench/model-4x128/ (same code + corpus → same files).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildByteTokenizer, byteToUnicode } from '../onnx-export/byte-tokenizer.ts';
import { writeRandomGpt2 } from '../onnx-export/tiny-random.ts';
import type { Gpt2Config } from '../onnx-export/gpt2-weights.ts';

export const ROOT = resolve(import.meta.dirname, '../..');
export const DEFAULT_MODEL_DIR = join(ROOT, 'models/default');
export const BENCH_MODEL_DIR = join(ROOT, 'out/bench/model-4x128');

export const BENCH_CONFIG = (vocabSize: number): Gpt2Config => ({
  vocabSize,
  nPositions: 256,
  nEmbd: 128,
  nLayer: 4,
  nHead: 4,
  layerNormEpsilon: 1e-5,
});

export interface BenchModel {
  dir: string;
  /** Short column name. */
  name: string;
  description: string;
}

/** The project's `models/default`, when it has an ONNX file. */
export function defaultModel(): BenchModel | null {
  if (!existsSync(join(DEFAULT_MODEL_DIR, 'onnx/model.onnx'))) return null;
  const config = JSON.parse(readFileSync(join(DEFAULT_MODEL_DIR, 'config.json'), 'utf8'));
  return {
    dir: DEFAULT_MODEL_DIR,
    name: 'models/default',
    description: `models/default (the project's model: ${config.n_layer} layers × ${config.n_embd} wide, vocab ${config.vocab_size}, ${config.n_positions} positions)`,
  };
}

/** The cached (or newly written) random 4 × 128 model with a 4,096 vocabulary. */
export async function representativeModel(): Promise<BenchModel> {
  const name = 'random 4×128, vocab 4,096';
  const description = 'random-weight GPT-2, 4 layers × 128 wide, vocab 4,096 (BPE learned from the corpus), 256 positions';
  if (!existsSync(join(BENCH_MODEL_DIR, 'onnx/model.onnx'))) {
    // " [" and "->" must be single tokens (pipeline/core/lm/tokens.ts); learned merges come after them.
    const merges = learnMerges(corpusSample(300_000), 4096 - 256 - 1, [['Ġ', '['], ['-', '>']]);
    const tokenizer = buildByteTokenizer({ merges, specialTokens: ['<|endoftext|>'] });
    await writeRandomGpt2(BENCH_MODEL_DIR, BENCH_CONFIG(tokenizer.vocabSize), tokenizer.json, { seed: 6, writer: 'pipeline/bench/model.ts', use: 'benchmarks' });
  }
  return { dir: BENCH_MODEL_DIR, name, description };
}

/** About `chars` characters of SOTU and Factbook text, every n-th document so both sources and eras are in. */
function corpusSample(chars: number): string[] {
  const texts: string[] = [];
  for (const file of ['corpus/sotu.jsonl', 'corpus/factbook.jsonl']) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n').filter(Boolean);
    const step = Math.max(1, Math.floor(lines.length / 200));
    let total = 0;
    for (let i = 0; i < lines.length && total < chars / 2; i += step) {
      const text = (JSON.parse(lines[i]) as { text: string }).text;
      texts.push(text);
      total += text.length;
    }
  }
  return texts;
}

/**
 * Byte-level BPE merges, greedy on pair frequency over word types (GPT-2-style pre-tokenization: a word keeps
 * its leading space). Ties break on the pair string, so the result is deterministic. Good enough for realistic
 * token counts; not a production tokenizer trainer.
 */
export function learnMerges(texts: readonly string[], count: number, first: [string, string][] = []): [string, string][] {
  const byteChar = byteToUnicode();
  const encoder = new TextEncoder();
  const freq = new Map<string, number>();
  for (const text of texts) {
    for (const word of text.match(/ ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+/gu) ?? []) {
      const mapped = Array.from(encoder.encode(word), (b) => byteChar[b]).join('');
      freq.set(mapped, (freq.get(mapped) ?? 0) + 1);
    }
  }
  const words = [...freq].map(([w, n]) => ({ symbols: [...w], n }));
  const merges: [string, string][] = [...first];
  const vocab = new Set([...byteChar, ...first.map(([a, b]) => a + b)]);
  for (const [a, b] of first) for (const w of words) mergeIn(w.symbols, a, b);
  while (merges.length < count) {
    const pairs = new Map<string, number>();
    for (const { symbols, n } of words) {
      for (let i = 0; i + 1 < symbols.length; i++) {
        const key = symbols[i] + '\u0000' + symbols[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + n);
      }
    }
    let best = '';
    let bestN = 0;
    for (const [key, n] of pairs) {
      if (n > bestN || (n === bestN && key < best)) {
        const [a, b] = key.split('\u0000');
        if (vocab.has(a + b)) continue;
        best = key;
        bestN = n;
      }
    }
    if (bestN < 2) break;
    const [a, b] = best.split('\u0000');
    merges.push([a, b]);
    vocab.add(a + b);
    for (const w of words) mergeIn(w.symbols, a, b);
  }
  return merges;
}

function mergeIn(s: string[], a: string, b: string): void {
  for (let i = 0; i + 1 < s.length; i++) if (s[i] === a && s[i + 1] === b) s.splice(i, 2, a + b);
}
