/**
 * What a decoder session's own inputs and outputs say (never guessed from the file name), read the way
 * Transformers.js v4 reads them: the KV-cache element type from the `past_key_values.*` input metadata (float32 or
 * float16, SmolLM2's fp16 / q4f16 files keep float16), the logits type from the `logits` output, and which optional
 * inputs it declares and must be fed (`position_ids`, `use_cache_branch`, `num_logits_to_keep`). A session with an
 * input this runtime cannot feed — a hybrid cache (Mamba `past_ssm`, LFM2 `past_conv`, Qwen3.5 `past_recurrent`, …)
 * or anything else unknown — is refused in one line at load instead of failing at the first score(). Pure.
 */
import type { OrtSession, OrtValueMetadata } from './ort-runtime.ts';

/** Float element types the runtime moves in and out of a session. */
export type FloatType = 'float32' | 'float16';

export interface DecoderIO {
  /** Element type of past_key_values.* / present.*. */
  cacheType: FloatType;
  /** Element type of `logits`; float16 rows are widened to float32 before JavaScript reads them. */
  logitsType: FloatType;
  hasPositionIds: boolean;
  /** A merged decoder's branch flag: true when a past is fed (Transformers.js decoder_forward). */
  hasUseCacheBranch: boolean;
  /** int64 scalar: 0 computes logits for every position, k for the last k (Transformers.js feeds 1 when generating). */
  hasNumLogitsToKeep: boolean;
}

const KNOWN = new Set(['input_ids', 'attention_mask', 'position_ids', 'use_cache_branch', 'num_logits_to_keep']);
const CACHE = /^past_key_values\.\d+\.(key|value)$/;
/** Cache inputs of hybrid architectures, as Transformers.js renames them (getPastKeyValues). */
const HYBRID = /^past_(ssm|conv|recurrent|compressor|indexer)/;

const floatType = (meta: OrtValueMetadata | undefined): FloatType | string | undefined => (meta?.isTensor ? meta.type : undefined);

/**
 * Reads the session's decoder I/O (pass the session's outputMetadata for the logits type). `file` names the graph
 * in errors. Throws one line naming what the graph has and
 * what would work.
 */
export function readDecoderIO(
  session: OrtSession,
  file: string,
  outputMetadata?: readonly OrtValueMetadata[],
  /** Inputs the runtime added itself (the scorer's score_rows / score_ids). */
  own: readonly string[] = [],
): DecoderIO {
  const hybrid = session.inputNames.filter((n) => HYBRID.test(n));
  if (hybrid.length > 0) {
    throw new Error(
      `${file} has a hybrid cache (${hybrid.slice(0, 3).join(', ')}${hybrid.length > 3 ? ', …' : ''}): this runtime feeds only ` +
        'past_key_values.{i}.key|value; use an attention-only decoder (GPT-2, Llama/SmolLM2, Qwen2, Qwen3)',
    );
  }
  const unknown = session.inputNames.filter((n) => !KNOWN.has(n) && !CACHE.test(n) && !own.includes(n));
  if (unknown.length > 0) {
    throw new Error(
      `${file} takes input${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}, which this runtime cannot feed ` +
        `(it feeds ${[...KNOWN].join(', ')} and past_key_values.{i}.key|value)`,
    );
  }
  const byName = new Map((session.inputMetadata ?? []).map((m) => [m.name, m]));
  const cache = floatType(byName.get('past_key_values.0.key')) ?? 'float32';
  const outputs = new Map((outputMetadata ?? []).map((m) => [m.name, m]));
  const logits = floatType(outputs.get('logits')) ?? 'float32';
  for (const [what, type] of [['KV cache', cache], ['logits', logits]] as const) {
    if (type !== 'float32' && type !== 'float16') {
      throw new Error(`${file}: ${what} type ${type}; this runtime reads float32 or float16 (fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4 files)`);
    }
  }
  const has = (name: string) => session.inputNames.includes(name);
  return {
    cacheType: cache as FloatType,
    logitsType: logits as FloatType,
    hasPositionIds: has('position_ids'),
    hasUseCacheBranch: has('use_cache_branch'),
    hasNumLogitsToKeep: has('num_logits_to_keep'),
  };
}

/** IEEE half bits → float32 (exact: every half is a float32). */
export function halfToFloat(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) {
    const h = bits[i];
    const sign = h & 0x8000 ? -1 : 1;
    const exp = (h >>> 10) & 0x1f;
    const mant = h & 0x3ff;
    out[i] = exp === 0 ? sign * mant * 2 ** -24 : exp === 0x1f ? (mant ? NaN : sign * Infinity) : sign * (1 + mant / 1024) * 2 ** (exp - 15);
  }
  return out;
}

/** A tensor's float data as float32 (float16 widened; float32 returned as is). */
export function floatRows(tensor: { type: string; data: unknown }): Float32Array {
  if (tensor.type === 'float16') return halfToFloat(tensor.data as Uint16Array);
  return tensor.data as Float32Array;
}
