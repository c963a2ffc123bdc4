import type { CausalLM, DecodeState, Sample, SampleOptions, ScoreRequest, ScoreResult } from '../lm/lm.ts';
import { mulberry32 } from '../../random/mulberry32.ts';

/**
 * A character-level LM with probabilities you choose, for testing the scorer against hand-computed losses.
 * Token id = UTF-16 code unit (mod 128), except " [" which is one token (id 1), as in real tokenizers.
 * `prob(context, next)` gives p(next | context) as text; the rest of the probability mass is spread
 * uniformly over the other tokens, so distributions sum to 1.
 */
export class FakeLM implements CausalLM {
  readonly id = 'fake-char-lm';
  readonly vocab = 128;
  /** No end token: generation runs to its limit. */
  readonly eosIds: readonly number[] = [];

  constructor(
    /** Probability of `next` after `context`, or undefined for "uniform". */
    private readonly prob: (context: string, next: string) => number | undefined,
    readonly maxLength = 4096,
    readonly bosId: number | undefined = undefined,
  ) {}

  static readonly OPEN = 1;

  encode(text: string): number[] {
    const ids: number[] = [];
    for (let i = 0; i < text.length; i++) {
      if (text.startsWith(' [', i)) {
        ids.push(FakeLM.OPEN);
        i++;
      } else ids.push(text.charCodeAt(i) % this.vocab);
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    return ids.map((id) => (id === FakeLM.OPEN ? ' [' : String.fromCharCode(id))).join('');
  }

  /** log p(next | context) under the model's rule. */
  logProb(context: string, next: string): number {
    const p = this.prob(context, next);
    if (p !== undefined) return Math.log(p);
    // The mass left after the characters that have an explicit probability, shared by the rest.
    let explicit = 0;
    let count = 0;
    for (let c = 0; c < this.vocab; c++) {
      const q = this.prob(context, this.decode([c]));
      if (q !== undefined) {
        explicit += q;
        count++;
      }
    }
    return Math.log((1 - explicit) / (this.vocab - count));
  }

  async score(batch: readonly ScoreRequest[]): Promise<ScoreResult[]> {
    return batch.map((req) => {
      const context = (t: number) => this.decode(req.ids.slice(0, t));
      const end = req.upTo ?? req.ids.length;
      const tokenLogProbs = new Float32Array(req.ids.length);
      for (let t = 1; t < end; t++) tokenLogProbs[t] = this.logProb(context(t), this.decode([req.ids[t]]));
      const out: ScoreResult = { tokenLogProbs };
      if (req.probe !== undefined) {
        const probe = this.decode([req.probe]);
        const probeLogProbs = new Float32Array(req.ids.length);
        for (let t = 0; t < end; t++) probeLogProbs[t] = this.logProb(context(t + 1), probe);
        out.probeLogProbs = probeLogProbs;
      }
      return out;
    });
  }

  /** Greedy/sampled decoding over the explicit probabilities only (enough for tests). */
  async sample(prompt: readonly number[], options: SampleOptions): Promise<Sample[]> {
    const rng = mulberry32(options.seed);
    const out: Sample[] = [];
    for (let s = 0; s < options.n; s++) {
      let text = '';
      let stopped = false;
      for (let step = 0; step < options.maxNewTokens; step++) {
        const context = this.decode(prompt) + text;
        const r = rng.next();
        let acc = 0;
        let next = '';
        for (let c = 0; c < this.vocab; c++) {
          const ch = this.decode([c]);
          acc += Math.exp(this.logProb(context, ch));
          if (r < acc) {
            next = ch;
            break;
          }
        }
        text += next;
        const stop = text.indexOf(options.stop);
        if (stop >= 0) {
          text = text.slice(0, stop);
          stopped = true;
          break;
        }
      }
      out.push({ text, stopped });
    }
    return out;
  }

  /** Step decoding: logits are this model's log-probabilities of every token after the text fed so far. */
  async openDecoder(prompt: readonly number[]): Promise<DecodeState> {
    const ids = [...prompt];
    const logitsAfter = (): Float32Array => {
      const context = this.decode(ids);
      return Float32Array.from({ length: this.vocab }, (_, c) => this.logProb(context, this.decode([c])));
    };
    const state = {
      logits: logitsAfter(),
      get length() {
        return ids.length;
      },
      feed: async (more: readonly number[]) => {
        if (ids.length + more.length > this.maxLength) throw new Error('FakeLM: past maxLength');
        ids.push(...more);
        state.logits = logitsAfter();
      },
    };
    return state;
  }
}
