/**
 * A small seedable PRNG (mulberry32: 32-bit state, period 2^32) — enough for sampling and for generating
 * deterministic test weights; not for cryptography. Same seed → same sequence on every platform.
 *
 * It is a layer of its own below everything and imports nothing: sampling and generation (core), training and
 * evaluation (train/, eval/) and onnx/'s random test weights all import it from here (.dependency-cruiser.cjs,
 * random-is-lowest).
 */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Standard normal (Box–Muller). */
  normal(): number;
}

/** A Random whose position in its sequence can be saved and restored (a training checkpoint resumes the data). */
export interface SeekableRandom extends Random {
  /** The whole generator state (mulberry32: one uint32). */
  getState(): number;
  setState(state: number): void;
}

export function mulberry32(seed: number): SeekableRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => {
    const u = 1 - next(); // (0, 1]: log is finite
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * next());
  };
  return { next, normal, getState: () => state, setState: (s: number) => { state = s >>> 0; } };
}
