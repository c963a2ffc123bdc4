/**
 * Teacher-forced log-probs on the ONNX decoder (`CausalLM.score`): requests sorted by length and cut into batches
 * (right padding + attention mask), each forwarded only as far as its `upTo` needs, no KV cache.
 *
 * Where hidden states become log-probs is one of three paths, chosen (and self-checked) by ort-lm.ts:
 * - head: a scoring copy of the decoder graph (onnx/logprob-graph.ts buildScoringDecoderOnnx) runs the LM head and
 *   log-softmax only on the positions a request reads; only [n, 2] floats come back, logits never reach JavaScript.
 * - graph: the decoder's full logits [B, T, V] come back and go through a tiny log-softmax + gather graph.
 * - js: the same gather in JavaScript (token-math.ts logSoftmaxGather), the reference.
 */
import type { ScoreRequest, ScoreResult } from './lm.ts';
import type { DecoderGraph } from './ort-graph.ts';
import type { OrtSession, OrtTensor } from './ort-runtime.ts';
import { floatRows } from './ort-graph-io.ts';
import { type PrefixCache, PrefixCaches } from './ort-prefix-cache.ts';
import { logSoftmaxGather } from './token-math.ts';

/** The shape of one score() forward pass: `rows` × `length` padded tokens, of which `tokens` are real. */
export interface ScoreBatchShape {
  rows: number;
  length: number;
  tokens: number;
}

export interface OrtScorerOptions {
  /** The scoring decoder graph (the "head" path), or null. Takes precedence over `gather`. */
  head: OrtSession | null;
  /** The log-softmax + gather graph over full logits (the "graph" path), or null: gather in JavaScript. */
  gather: OrtSession | null;
  /** Most sequences per forward pass. */
  maxBatchRows: number;
  /** Most padded tokens (rows × longest row) per forward pass. */
  maxBatchTokens: number;
  /** With a head: most rows read (scored positions) per forward pass, bounding its [n, V] logits. */
  maxRowsRead?: number;
}

interface PendingScore {
  request: ScoreRequest;
  /** ids[0..skip) come from a shared prefix's cache (0: none): rows below `skip` are not forwarded. */
  skip: number;
  /** Exclusive end of the positions wanted. */
  upTo: number;
  /** Tokens to forward: upTo with a probe (p(probe | ids[≤ upTo−1])), else upTo − 1. */
  need: number;
  /** First position whose log-probs are computed (rows firstRow..need−1); at least `skip`. */
  firstRow: number;
  result: ScoreResult;
}

/** Log-probs per position: slot 0 = the next token ids[t+1], slot 1 = the probe. */
const K = 2;

export class OrtScorer {
  /**
   * Called once per forward pass with its shape (benchmarks replay these shapes on a bare session to measure the
   * runtime's limit).
   */
  onScoreBatch?: (batch: ScoreBatchShape) => void;

  /** The KV caches of shared prefixes (ScoreRequest.sharedPrefix), kept across score() calls. */
  readonly prefixes: PrefixCaches;

  constructor(
    private readonly graph: DecoderGraph,
    private readonly options: OrtScorerOptions,
  ) {
    this.prefixes = new PrefixCaches(graph);
  }

  /** Where log-probs are made: in the decoder graph ("head"), by the log-softmax graph, or in JavaScript. */
  get path(): 'head' | 'graph' | 'js' {
    return this.options.head ? 'head' : this.options.gather ? 'graph' : 'js';
  }

  /** `CausalLM.score` (see lm.ts for the contract). */
  async score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    const pending = batch.map((request, i): PendingScore => {
      this.graph.checkIds(request.ids, `score: request ${i}`);
      const len = request.ids.length;
      const upTo = Math.max(0, Math.min(request.upTo ?? len, len));
      const need = request.probe !== undefined ? upTo : Math.max(0, upTo - 1);
      if (request.probe !== undefined) this.graph.checkIds([request.probe], `score: request ${i} probe`);
      const result: ScoreResult = { tokenLogProbs: new Float32Array(len) };
      if (request.probe !== undefined) result.probeLogProbs = new Float32Array(len);
      // First logits row read: row t predicts ids[t + 1] and gives probeLogProbs[t]; `from` names the first read.
      const firstRow = Math.max(0, Math.min((request.from ?? (request.probe !== undefined ? 0 : 1)) - 1, need));
      // A shared prefix is used only below the first row read and with a row left to forward after it.
      const skip = request.sharedPrefix && !this.graph.cacheOnDevice ? Math.max(0, Math.min(request.sharedPrefix, firstRow, need - 1)) : 0;
      return { request, skip, upTo, need, firstRow, result };
    });
    // One group per shared prefix (their rows are forwarded on top of its cache), and one without.
    const groups = new Map<string, PendingScore[]>();
    for (const p of pending.filter((p) => p.need > 0)) {
      const key = p.skip > 0 ? p.request.ids.slice(0, p.skip).join(',') : '';
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    for (const group of groups.values()) {
      const skip = group[0].skip;
      await this.scoreGroup(group, skip > 0 ? await this.prefixes.get(group[0].request.ids.slice(0, skip)) : null);
    }
    return pending.map((p) => p.result);
  }

  /** Requests that share `prefix` (or none), in length-bucketed forward passes. */
  private async scoreGroup(group: PendingScore[], prefix: PrefixCache | null): Promise<void> {
    // Length bucketing: longest first, so each batch pads to a length close to all its rows.
    const todo = group.sort((a, b) => b.need - a.need);
    const { maxBatchRows, maxBatchTokens } = this.options;
    for (let start = 0; start < todo.length; ) {
      const longest = todo[start].need;
      let rows = Math.max(1, Math.min(maxBatchRows, Math.floor(maxBatchTokens / longest)));
      const { head, maxRowsRead } = this.options;
      if (head && maxRowsRead) {
        // In-graph head: the rows read become [n, V] logits and their log-softmax inside the graph; keep n under
        // maxRowsRead (a p_i request reads its window's rows, a loss request only its last few).
        let read = 0;
        for (let k = 0; k < rows && start + k < todo.length; k++) {
          read += todo[start + k].need - todo[start + k].firstRow;
          if (k > 0 && read > maxRowsRead) {
            rows = k;
            break;
          }
        }
      }
      const chunk = todo.slice(start, start + rows);
      await this.scoreChunk(chunk, prefix);
      start += chunk.length;
    }
  }

  /**
   * One forward pass over `chunk`: ids [B, T] (positions skip..skip+T−1, T = the longest `need` − skip, right-padded)
   * on top of the prefix's cache tiled to B rows, mask [B, skip + T].
   */
  private async scoreChunk(chunk: PendingScore[], prefix: PrefixCache | null): Promise<void> {
    const B = chunk.length;
    const S = prefix?.length ?? 0;
    const T = Math.max(...chunk.map((p) => p.need)) - S;
    const ids = new BigInt64Array(B * T).fill(BigInt(this.graph.spec.padTokenId));
    const mask = new BigInt64Array(B * (S + T));
    chunk.forEach(({ request, need }, b) => {
      mask.fill(1n, b * (S + T), b * (S + T) + S);
      for (let t = 0; t < need - S; t++) {
        ids[b * T + t] = BigInt(request.ids[S + t]);
        mask[b * (S + T) + S + t] = 1n;
      }
    });
    this.onScoreBatch?.({ rows: B, length: T, tokens: chunk.reduce((s, p) => s + p.need - S, 0) });
    const past = prefix ? this.prefixes.tile(prefix, B) : null;
    if (this.options.head) return this.scoreChunkInGraph(chunk, this.options.head, ids, T, mask, past, S);
    const { logits } = await this.graph.forward(ids, B, T, past, false, S, mask);

    // indices [B, T, K]: for row b, position S + t, slot 0 = the next token ids[S+t+1] (0 past upTo), slot 1 = the probe.
    const indices = new BigInt64Array(B * T * K);
    chunk.forEach(({ request, upTo }, b) => {
      const probe = BigInt(request.probe ?? 0);
      for (let t = 0; t < T; t++) {
        if (S + t + 1 < upTo) indices[(b * T + t) * K] = BigInt(request.ids[S + t + 1]);
        indices[(b * T + t) * K + 1] = probe;
      }
    });
    const gather = this.options.gather;
    const { ort } = this.graph;
    // gathered [B, T, K] log-probs (nats)
    const gathered = gather
      ? ((await gather.run({ logits, indices: new ort.Tensor('int64', indices, [B, T, K]) }, ['log_probs']))
          .log_probs.data as Float32Array)
      : logSoftmaxGather(floatRows(logits), logits.dims[2], indices, K);

    chunk.forEach(({ request, upTo, result }, b) => {
      for (let t = S + 1; t < upTo; t++) result.tokenLogProbs[t] = gathered[(b * T + t - S - 1) * K];
      if (result.probeLogProbs && request.probe !== undefined) {
        for (let t = S; t < upTo; t++) result.probeLogProbs[t] = gathered[(b * T + t - S) * K + 1];
      }
    });
  }

  /** scoreChunk on the scoring graph: only rows firstRow..need−1 of each request go through the LM head. */
  private async scoreChunkInGraph(chunk: PendingScore[], head: OrtSession, ids: BigInt64Array, T: number, mask: BigInt64Array, past: OrtTensor[] | null, S: number) {
    const B = chunk.length;
    const n = chunk.reduce((s, p) => s + p.need - p.firstRow, 0);
    // rows [n]: flat b × T + (t − S) of each selected position t; indices [n, K]: slot 0 = the next token ids[t+1]
    // (0 past upTo), slot 1 = the probe.
    const rows = new BigInt64Array(n);
    const indices = new BigInt64Array(n * K);
    let r = 0;
    chunk.forEach(({ request, upTo, need, firstRow }, b) => {
      const probe = BigInt(request.probe ?? 0);
      for (let t = firstRow; t < need; t++, r++) {
        rows[r] = BigInt(b * T + t - S);
        if (t + 1 < upTo) indices[r * K] = BigInt(request.ids[t + 1]);
        indices[r * K + 1] = probe;
      }
    });
    const { Tensor } = this.graph.ort;
    // num_logits_to_keep 1: beside the gathered rows, the graph's own head runs on one position per row only.
    const feeds = this.graph.feeds(ids, B, T, past, S, mask, 1);
    feeds.score_rows = new Tensor('int64', rows, [n]);
    feeds.score_ids = new Tensor('int64', indices, [n, K]);
    // gathered [n, K] log-probs (nats)
    const gathered = (await head.run(feeds, ['score_log_probs'])).score_log_probs.data as Float32Array;
    r = 0;
    for (const { request, upTo, need, firstRow, result } of chunk) {
      for (let t = firstRow; t < need; t++, r++) {
        if (t + 1 < upTo) result.tokenLogProbs[t + 1] = gathered[r * K];
        if (result.probeLogProbs && request.probe !== undefined) result.probeLogProbs[t] = gathered[r * K + 1];
      }
    }
  }

  /** Frees the scorer's own sessions (not the decoder's, which is also the head in the one-session graph). */
  async release(): Promise<void> {
    await this.options.gather?.release();
    if (this.options.head && this.options.head !== this.graph.session) await this.options.head.release();
  }
}
