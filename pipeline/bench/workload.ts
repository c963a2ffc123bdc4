/**
 * The scoring workload: real candidate calls from real documents. The pipeline's own stages (prefilter → propose
 * → guard → execute) run on corpus documents; every executed call becomes a call to score, at the window the
 * score stage would cut (same contextTokens, same call texts). Programmatic proposals only: with random weights
 * the LM's samples are noise, and the scorer's cost does not depend on who proposed a call.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AnnotateConfig } from '../core/config.ts';
import { defaultConfig } from '../core/default-config.ts';
import type { Doc } from '../core/document.ts';
import type { CausalLM } from '../core/lm/lm.ts';
import { createPipelineParts } from '../core/stages/parts.ts';
import type { PositionToScore } from '../core/scoring/scoring.ts';
import { callText, executeStage, guardStage, prefilterStage, proposeStage } from '../core/stages/stages.ts';
import { callTokens, planWindow } from '../core/scoring/window.ts';
import { nodeResources } from '../node/tools/parts.ts';
import { ROOT } from './model.ts';

export interface Workload {
  /** One entry per document, in corpus order: the positions with their executed calls. */
  docs: { id: string; positions: PositionToScore[] }[];
  calls: number;
  positions: number;
  config: AnnotateConfig;
}

/** Every `step`-th document of a JSONL corpus file, `count` of them. */
export function corpusDocs(file: string, count: number, step: number): Doc[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n').filter(Boolean);
  const docs: Doc[] = [];
  for (let i = 0; i < lines.length && docs.length < count; i += step) docs.push(JSON.parse(lines[i]) as Doc);
  return docs;
}

export async function buildWorkload(lm: CausalLM, docs: readonly Doc[]): Promise<Workload> {
  // Every registered tool; no translation engine here, so Translate's calls end as tool errors and are not scored.
  const config = defaultConfig({ lmProposals: false });
  const parts = createPipelineParts({ lm, resources: nodeResources() });
  async function* source() {
    yield* docs;
  }
  const stream = executeStage(parts)(guardStage(parts)(proposeStage(parts, config)(prefilterStage(parts, config)(source()))));
  const out: Workload['docs'] = [];
  let calls = 0;
  let positions = 0;
  for await (const work of stream) {
    const byPosition = new Map<number, PositionToScore['calls']>();
    for (const c of work.candidates) {
      if (c.outcome.kind !== 'pending' || c.result === undefined) continue;
      if (callTokens(lm, [callText(parts, c, c.result)]) > config.maxCallTokens) continue;
      const list = byPosition.get(c.at) ?? [];
      list.push({ callOnly: callText(parts, c, ''), withResult: callText(parts, c, c.result) });
      byPosition.set(c.at, list);
    }
    // The score stage's own window plan (window.ts): the context the pipeline scores, beside the longest call.
    const scored = [...byPosition].flatMap(([at, list]) => {
      const plan = planWindow(lm, work.doc.text, at, list.map((c) => c.withResult), { contextTokens: config.contextTokens });
      return plan ? [{ window: plan.window, calls: list }] : [];
    });
    calls += scored.reduce((s, p) => s + p.calls.length, 0);
    positions += scored.length;
    out.push({ id: work.doc.id, positions: scored });
  }
  return { docs: out, calls, positions, config };
}
