import { formatCall } from '../call-syntax.ts';
import { type Candidate, hasCallOnly, isPending } from '../candidates.ts';
import { type AnnotateConfig, DEFAULT_TAU_F_FLOOR } from '../config.ts';
import type { Doc } from '../document.ts';
import { judgeStored, usefulness } from '../scoring/judge.ts';
import { measureControl } from '../scoring/distractor.ts';
import { leaks } from './leakage.ts';
import { proposeStage } from './propose-stage.ts';
import { prefilter } from './prefilter.ts';
import { type CallTexts, scorePositionsTwoPass } from '../scoring/scoring.ts';
import { scorePositionsInline } from '../scoring/inline-scoring.ts';
import { searchedDoc, searchSpan } from './search-budget.ts';
import { maxArgumentLength } from '../tools/spec.ts';
import { callTokens, planWindow, type WindowPlan } from '../scoring/window.ts';

export type { DocWork, PipelineParts, Stage, StageProgress, ToolPositions } from './work.ts';
import type { DocWork, PipelineParts, Stage } from './work.ts';
export { proposeStage, seedFor, spread } from './propose-stage.ts';

export function prefilterStage(parts: PipelineParts, config: AnnotateConfig) {
  return async function* (docs: AsyncIterable<Doc>): AsyncIterable<DocWork> {
    for await (const doc of docs) {
      const searched = searchSpan(parts.lm, doc.text, config.maxDocTokens);
      const work: DocWork = { doc, searched, tools: [], skipped: {}, skippedKind: {}, positions: {}, candidates: [] };
      const seen = searchedDoc(work);
      if (parts.retrieveTools) work.retrieved = await parts.retrieveTools(seen.text);
      const retrieved = new Set(work.retrieved?.map((r) => r.name));
      for (const tool of config.tools) {
        const spec = parts.registry.get(tool);
        let verdict = spec ? prefilter(spec, seen) : { pass: false, kind: 'unknown_tool', reason: `unknown tool ${tool}` };
        if (verdict.pass && work.retrieved && !spec?.prefilter && !retrieved.has(tool)) {
          verdict = { pass: false, kind: 'not_retrieved', reason: `not among the ${work.retrieved.length} tools retrieved for the document` };
        }
        if (verdict.pass) work.tools.push(tool);
        else {
          work.skipped[tool] = verdict.reason ?? 'prefilter';
          work.skippedKind[tool] = verdict.kind ?? 'prefilter';
        }
      }
      yield work;
    }
  };
}

/** Registry check, input length, duplicates, JSON Schema, leakage guard: rejections get a reason, not a silent drop. */
export function guardStage(parts: PipelineParts): Stage {
  return async function* (input) {
    for await (const work of input) {
      const seen = new Set<string>();
      for (const c of work.candidates) {
        if (!isPending(c)) continue;
        const tool = parts.registry.get(c.tool);
        const key = `${c.tool}\u0000${c.input}\u0000${c.at}`;
        if (!tool) c.outcome = { kind: 'unknown_tool', detail: c.tool };
        else if (c.input.length > maxArgumentLength(tool) && tool.argument.property !== undefined) c.outcome = { kind: 'call_too_long' };
        else if (seen.has(key)) c.outcome = { kind: 'duplicate' };
        else {
          const invalid = parts.registry.schemaError(c.tool, c.input);
          const leak = invalid ? null : leaks(tool, c.input, work.doc.text.slice(0, c.at));
          if (invalid) c.outcome = { kind: 'schema_error', detail: invalid };
          else if (leak) c.outcome = { kind: 'leakage', detail: leak };
        }
        seen.add(key);
      }
      yield work;
    }
  };
}

/** Execute the surviving calls through the registry; errors are results, recorded as the reason. */
export function executeStage(parts: PipelineParts): Stage {
  return async function* (input) {
    for await (const work of input) {
      const pending = work.candidates.filter(isPending);
      parts.progress?.({ stage: 'executing', done: 0, total: pending.length });
      const results = await parts.execute(pending.map((c) => ({ call: { tool: c.tool, input: c.input }, doc: work.doc })));
      parts.progress?.({ stage: 'executing', done: pending.length, total: pending.length });
      const forms = new Map<Candidate, Candidate[]>();
      pending.forEach((c, i) => {
        const r = results[i];
        if (r.ok) {
          const spec = parts.registry.get(c.tool);
          c.result = spec?.styleResult ? spec.styleResult(r.value, c.input, work.doc.text.slice(0, c.at)) : r.value;
          const others = (spec?.resultForms?.(c.result) ?? []).filter((f) => f !== c.result);
          if (others.length > 0) forms.set(c, others.map((result) => ({ ...c, result })));
        } else {
          c.error = r.error;
          // The executor says which failure it was (a schema check before dispatch, or the tool's own); no text is parsed.
          c.outcome = r.schemaError !== undefined ? { kind: 'schema_error', detail: r.schemaError } : { kind: 'tool_error', detail: r.error };
        }
      });
      // Other writings of a result go right after it, so the candidates' order stays the proposal order.
      if (forms.size > 0) work.candidates = work.candidates.flatMap((c) => [c, ...(forms.get(c) ?? [])]);
      yield work;
    }
  };
}

/** The call text e(c, r) for a candidate; `result` '' gives e(c, ε). */
export function callText(parts: Pick<PipelineParts, 'registry'>, c: Pick<Candidate, 'tool' | 'input'>, result?: string): string {
  const tool = parts.registry.get(c.tool);
  const quoted = tool?.argument.syntax === 'quoted';
  const written = result && tool?.formatResult ? tool.formatResult(result) : result;
  return formatCall({ tool: c.tool, input: c.input }, { quoted, result: written });
}

/** A position's executed calls as the score stage plans them: their call texts and the window they share. */
export interface PlannedPosition {
  calls: Candidate[];
  /** e(c, ε), e(c, r) and τ_min of each of `calls`, in order. */
  texts: CallTexts[];
  /** The window planned beside the longest of `calls`; null when they leave no room for context. */
  plan: WindowPlan | null;
}

/**
 * Group `ready` calls by position and plan each position's window beside its longest call (window.ts, the plan every
 * caller uses). Calls longer than maxCallTokens, and every call of a position that leaves no room for context, are
 * marked call_too_long and left out. The same calls give the same windows: the web explorer plans again with the
 * scored calls to score a skipped L_b later (scoreCallOnly).
 */
export function planPositions(parts: Pick<PipelineParts, 'lm' | 'registry'>, config: AnnotateConfig, text: string, ready: readonly Candidate[]): PlannedPosition[] {
  const { lm } = parts;
  const byPosition = new Map<number, Candidate[]>();
  for (const c of ready) byPosition.set(c.at, (byPosition.get(c.at) ?? []).concat(c));
  return [...byPosition.entries()].flatMap(([at, calls]) => {
    const texts = calls.map((c) => ({ callOnly: callText(parts, c, ''), withResult: callText(parts, c, c.result), callOnlyFrom: tauMinFor(config, c.tool) }));
    const lengths = texts.map((t) => callTokens(lm, [t.withResult]));
    const fits = lengths.map((n) => n <= config.maxCallTokens);
    calls.forEach((c, j) => {
      if (!fits[j]) c.outcome = { kind: 'call_too_long' };
    });
    const longest = Math.max(0, ...lengths.filter((n) => n <= config.maxCallTokens));
    const plan = planWindow(lm, text, at, longest, { contextTokens: config.contextTokens });
    const fitting = calls.filter((_, j) => fits[j]);
    if (!plan) for (const c of fitting) c.outcome = { kind: 'call_too_long' };
    return fitting.length > 0 ? [{ calls: fitting, texts: texts.filter((_, j) => fits[j]), plan }] : [];
  });
}

/**
 * L_a and L_c for every executed call, batched across the document's positions, then L_b where L_a − L_c reaches the
 * call's τ_min (tauMinFor): below it no reader of the run needs L_b (two-pass scoring, scoring.ts).
 */
export function scoreStage(parts: PipelineParts, config: AnnotateConfig): Stage {
  const { lm } = parts;
  return async function* (input) {
    for await (const work of input) {
      const ready = work.candidates.filter((c) => isPending(c) && c.result !== undefined);
      const scorable = planPositions(parts, config, work.doc.text, ready).filter((p) => p.plan);
      // The call as a prefix (the paper's, the default) or inline at its position (--call-placement inline).
      const score = config.callPlacement === 'inline' ? scorePositionsInline : scorePositionsTwoPass;
      const scored = await score(
        lm,
        scorable.map((p) => ({ window: p.plan!.window, calls: p.texts })),
        { batchSize: config.batchSize, onProgress: (done, total) => parts.progress?.({ stage: 'scoring', done, total }) },
      );
      scorable.forEach((p, i) => p.calls.forEach((c, j) => (c.losses = scored[i].losses[j])));
      yield work;
    }
  };
}

/**
 * The counterfactual control (option `controlMargin`): for each scored call that reaches its τ_f, L_c of a
 * distractor result of the same tool at the same position (distractor.ts), stored on the candidate.
 */
export function controlStage(parts: PipelineParts, config: AnnotateConfig): Stage {
  return async function* (input) {
    for await (const work of input) {
      if (config.controlMargin !== null) {
        const reaching = work.candidates.filter((c) => isPending(c) && c.losses && hasCallOnly(c.losses) && usefulness(c.losses) >= (config.thresholds[c.tool]?.tauF ?? Infinity));
        parts.progress?.({ stage: 'control', done: 0, total: reaching.length });
        await measureControl(parts.lm, work.doc.text, reaching, work.candidates, (c, result) => callText(parts, c, result), {
          contextTokens: config.contextTokens,
          maxCallTokens: config.maxCallTokens,
          batchSize: config.batchSize,
          placement: config.callPlacement,
        });
        parts.progress?.({ stage: 'control', done: reaching.length, total: reaching.length });
      }
      yield work;
    }
  };
}

/** The verdict, from stored losses, the tool's τ_f and (when the run uses it) the control's margin (pure). */
export function judgeStage(config: AnnotateConfig): Stage {
  return async function* (input) {
    for await (const work of input) {
      for (const c of work.candidates) {
        if (!isPending(c) || !c.losses) continue;
        const v = judgeStored(c.losses, config.thresholds[c.tool]?.tauF ?? Infinity, { measured: c.control, margin: controlMarginFor(config, c.tool) });
        // τ_min ≤ τ_f, so a call without L_b is below τ_f by its bound; needs_call_only would be a scoring bug.
        if (v.outcome === 'needs_call_only') throw new Error(`judge: ${c.tool} call at ${c.at} has no L_b but its bound ${v.usefulnessAtMost} reaches τ_f`);
        if ('usefulness' in v) c.usefulness = v.usefulness;
        else c.usefulnessAtMost = v.usefulnessAtMost;
        c.outcome = { kind: v.outcome };
      }
      yield work;
    }
  };
}

/** The control margin for a tool's calls: null when the run has no control, else the tool's own or the run's. */
export function controlMarginFor(config: AnnotateConfig, tool: string): number | null {
  if (config.controlMargin === null) return null;
  return config.thresholds[tool]?.controlMargin ?? config.controlMargin;
}

/**
 * τ_min for a tool's calls, nats: the lowest threshold a reader of the run may judge them at — the tool's τ_f (the
 * judge, the control) or the stats grid's floor (config.tauFFloor, else DEFAULT_TAU_F_FLOOR).
 */
export function tauMinFor(config: AnnotateConfig, tool: string): number {
  return Math.min(config.thresholds[tool]?.tauF ?? Infinity, config.tauFFloor ?? DEFAULT_TAU_F_FLOOR);
}

/** All stages chained, from documents to judged work. */
export function annotate(parts: PipelineParts, config: AnnotateConfig, docs: AsyncIterable<Doc>): AsyncIterable<DocWork> {
  const stages: Stage[] = [
    proposeStage(parts, config),
    guardStage(parts),
    executeStage(parts),
    scoreStage(parts, config),
    controlStage(parts, config),
    judgeStage(config),
  ];
  return stages.reduce<AsyncIterable<DocWork>>((stream, stage) => stage(stream), prefilterStage(parts, config)(docs));
}
