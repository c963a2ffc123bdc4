/**
 * llama.cpp's bare forward for the backends bench (backends-child.ts): the rows decoded on a context of their own
 * (node-llama-cpp 3.21.1, CPU, 1 thread, float32 KV cache and no flash attention, as the llama.cpp backend sets them:
 * lm-backends/llama-cpp.ts), with the LM head computed at the positions asked for and nothing read back.
 *
 * node-llama-cpp has no public call that decodes without sampling: controlledEvaluate samples (at least a greedy pick
 * over the vocabulary, an async call per position) wherever logits are computed. So the context's addon handle
 * (`_ctx`, internal; the backend already relies on it: llama-cpp-lm.ts rawProbabilities) is driven directly —
 * initBatch / addToBatch(tokens, positions with logits) / decodeBatch is one llama_decode in which llama.cpp runs the
 * head only on the flagged positions (its n_outputs), then the row's cells are removed. One row per decode, as the
 * scorer evaluates them (llama-cpp-lm.ts evaluates one request at a time).
 *
 *   heads 'one'  the head at each row's last position (what a caller reading one next-token distribution pays)
 *   heads 'all'  the head at every position (the logits the p_i read needs at every position)
 */
import type { LlamaContext } from 'node-llama-cpp';

/** The addon calls used (node-llama-cpp 3.21.1 bindings/AddonTypes.d.ts AddonContext). */
interface AddonContext {
  initBatch(size: number): void;
  addToBatch(sequenceId: number, firstTokenSequenceIndex: number, tokens: Uint32Array, logitIndexes: Uint32Array): Uint32Array;
  decodeBatch(): Promise<void>;
  removeTokenCellsFromSequence(sequenceId: number, startPos: number, endPos: number): boolean;
}

export type Heads = 'one' | 'all';

export interface LlamaBare {
  forward(rows: readonly (readonly number[])[], heads: Heads): Promise<void>;
  release(): Promise<void>;
}

/** Opens `file` for rows of at most `length` tokens. Throws one line if node-llama-cpp's internals moved. */
export async function openLlamaBare(file: string, length: number): Promise<LlamaBare> {
  const lib = await import('node-llama-cpp');
  const llama = await lib.getLlama({ gpu: false, build: 'never', logLevel: lib.LlamaLogLevel.error, progressLogs: false });
  const model = await llama.loadModel({ modelPath: file, gpuLayers: 0 });
  const context: LlamaContext = await model.createContext({
    contextSize: length + 1,
    sequences: 1,
    batchSize: length,
    threads: 1,
    flashAttention: false,
    experimentalKvCacheKeyType: 'F32',
    experimentalKvCacheValueType: 'F32',
  });
  const addon = (context as unknown as { _ctx?: AddonContext })._ctx;
  if (typeof addon?.addToBatch !== 'function' || typeof addon.decodeBatch !== 'function') {
    throw new Error('node-llama-cpp: LlamaContext._ctx.addToBatch / decodeBatch are not where 3.21.1 has them; install node-llama-cpp@3.21.1');
  }
  return {
    async forward(rows, heads) {
      for (const row of rows) {
        addon.initBatch(row.length);
        const outputs = heads === 'all' ? Uint32Array.from(row, (_, i) => i) : Uint32Array.of(row.length - 1);
        addon.addToBatch(0, 0, Uint32Array.from(row), outputs);
        await addon.decodeBatch();
        if (!addon.removeTokenCellsFromSequence(0, 0, row.length)) throw new Error(`${file}: llama.cpp kept the row's KV cells`);
      }
    },
    async release() {
      await context.dispose();
      await model.dispose();
    },
  };
}
