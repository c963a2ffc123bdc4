/**
 * What the GPT-2 and Llama weight maps share: a `Map<name, Float32Array>` checked against a map of expected shapes,
 * and deterministic random weights for tests drawn in the shapes' order.
 */
import { mulberry32 } from '../random/mulberry32.ts';

export type WeightMap = Map<string, Float32Array>;
export type WeightShapes = Map<string, number[]>;

const count = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** How many problems one error names before it counts the rest (a foreign layout misses hundreds of weights). */
const PROBLEMS_NAMED = 5;

/**
 * Throws one Error (prefixed by `what`) naming the first missing, unexpected or wrongly sized weights and counting
 * the rest; when no expected weight is there at all it says the file is another layout (an Optimum export names its
 * initializers by graph node, not by weight).
 */
export function checkWeightShapes(what: string, shapes: WeightShapes, weights: WeightMap): void {
  const problems: string[] = [];
  let missing = 0;
  for (const [name, dims] of shapes) {
    const w = weights.get(name);
    if (!w) missing++, problems.push(`missing ${name} [${dims}]`);
    else if (w.length !== count(dims)) problems.push(`${name} has ${w.length} values, [${dims}] needs ${count(dims)}`);
  }
  for (const name of weights.keys()) if (!shapes.has(name)) problems.push(`unexpected ${name}`);
  if (problems.length === 0) return;
  const named = problems.slice(0, PROBLEMS_NAMED).join('; ');
  const rest = problems.length > PROBLEMS_NAMED ? `; … ${problems.length - PROBLEMS_NAMED} more (${missing} of ${shapes.size} weights missing)` : '';
  const layout = missing === shapes.size ? ' — none of the weights is there by name: not a layout this project writes' : '';
  throw new Error(`${what} do not match the config${layout}: ${named}${rest}`);
}

/**
 * Deterministic random weights for tests (not a training init): matrices N(0, 0.2²), the token embedding
 * `embedding` N(0, 0.5²) so the next-token distributions are far from uniform, norm weights (`isNorm`) 1 + N(0, 0.1²)
 * and every other vector N(0, 0.1²), so that a wrong wiring of any parameter shows up in the logits.
 */
export function randomWeights(shapes: WeightShapes, seed: number, embedding: string, isNorm: (name: string) => boolean): WeightMap {
  const rng = mulberry32(seed);
  const weights: WeightMap = new Map();
  for (const [name, dims] of shapes) {
    const data = new Float32Array(count(dims));
    const std = dims.length === 2 ? (name === embedding ? 0.5 : 0.2) : 0.1;
    const mean = isNorm(name) ? 1 : 0;
    for (let i = 0; i < data.length; i++) data[i] = mean + std * rng.normal();
    weights.set(name, data);
  }
  return weights;
}
