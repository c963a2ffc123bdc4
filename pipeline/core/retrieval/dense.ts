/**
 * The dense retriever: a text's vector is the mean of the run's own LM's hidden states over its tokens (the LM
 * head's input, HiddenStateLM), centred on the tools' mean and mapped by a projection trained contrastively on
 * (text, tool) pairs made from the tools' own documentation (projection.ts); tools are ranked by cosine.
 */
import type { HiddenStateLM } from '../lm/lm.ts';
import type { Random } from '../../random/mulberry32.ts';
import { dot, type Projection, type ProjectionOptions, project, type TrainingPair, trainProjection } from './projection.ts';
import { type RankedTool, type ToolRetriever, topOf } from './retriever.ts';
import { nameWords, type RetrievableTool, toolText } from './tool-text.ts';

/** Text → a fixed-width vector. */
export interface TextEncoder {
  readonly width: number;
  encode(text: string): Promise<Float32Array>;
}

/** Tokens of a text the encoder reads (the model's context caps it too). */
export const MAX_ENCODED_TOKENS = 96;

/** The mean over the text's tokens of the LM's hidden state h (one forward pass, batch 1). */
export function hiddenStateEncoder(lm: HiddenStateLM, maxTokens = MAX_ENCODED_TOKENS): TextEncoder {
  const limit = Math.min(maxTokens, lm.maxLength - 1);
  return {
    width: lm.hiddenSize,
    async encode(text) {
      const ids = lm.encode(text.replace(/\s+/g, ' ').trim() || '.').slice(0, limit);
      const input = lm.bosId === undefined ? ids : [lm.bosId, ...ids];
      const { hidden } = await lm.hiddenStates(input);
      const C = lm.hiddenSize;
      const mean = new Float32Array(C);
      const from = lm.bosId === undefined ? 0 : 1; // the BOS position carries no text
      const rows = input.length - from;
      for (let t = from; t < input.length; t++) for (let c = 0; c < C; c++) mean[c] += hidden[t * C + c] / rows;
      return mean;
    },
  };
}

/** What the tool side of the index reads: its name in words and its description. */
export function toolSideText(tool: RetrievableTool): string {
  const text = toolText(tool);
  return `${text.nameWords}: ${text.description}`;
}

/**
 * Training texts for one tool, from its documentation alone (never from the labelled set): the description, its
 * first sentence, the name in words, each syntax line and example, the category with the name — ToolLLM's
 * (instruction, API) pairs, with the docs standing in for generated instructions.
 */
export function trainingTexts(tool: RetrievableTool): string[] {
  const doc = tool.documentation;
  const first = tool.description.split(/(?<=[.!?])\s/)[0];
  const words = nameWords(tool.name);
  const texts = [tool.description, first, words, `${words} of these values`];
  if (doc) texts.push(...doc.syntax, ...doc.examples, `${doc.category}: ${words}`);
  return [...new Set(texts.filter((t) => t.trim() !== ''))];
}

export interface DenseIndex {
  /** Tool names, in index order. */
  names: string[];
  /** Mean tool vector before projection, subtracted from every text's. */
  centre: Float32Array;
  projection: Projection;
  /** Projected, unit-length tool vectors, in index order. */
  tools: Float32Array[];
  /** Training loss by tenths of the steps. */
  losses: number[];
}

/** Encode the tools and their training texts, train the projection, project the tools. */
export async function buildDenseIndex(tools: readonly RetrievableTool[], encoder: TextEncoder, random: Random, options: ProjectionOptions = {}): Promise<DenseIndex> {
  const raw: Float32Array[] = [];
  for (const tool of tools) raw.push(await encoder.encode(toolSideText(tool)));
  const centre = new Float32Array(encoder.width);
  for (const v of raw) for (let c = 0; c < centre.length; c++) centre[c] += v[c] / raw.length;
  const centred = raw.map((v) => minus(v, centre));
  const pairs: TrainingPair[] = [];
  for (let k = 0; k < tools.length; k++) {
    for (const text of trainingTexts(tools[k])) pairs.push({ text: minus(await encoder.encode(text), centre), tool: k });
  }
  const { projection, losses } = trainProjection(pairs, centred, random, options);
  return { names: tools.map((t) => t.name), centre, projection, tools: centred.map((v) => project(projection, v)), losses };
}

export class DenseRetriever implements ToolRetriever {
  readonly name = 'dense';
  readonly scale = 'cosine similarity of the projected text and tool vectors, −1 to 1';
  constructor(
    private readonly index: DenseIndex,
    private readonly encoder: TextEncoder,
  ) {}

  async rank(text: string, top: number): Promise<RankedTool[]> {
    const q = project(this.index.projection, minus(await this.encoder.encode(text), this.index.centre));
    return topOf(this.index.names, this.index.tools.map((t) => dot(q, t)), top);
  }
}

function minus(a: Float32Array, b: Float32Array): Float32Array {
  const out = new Float32Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i] - b[i];
  return out;
}
