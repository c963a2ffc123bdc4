/**
 * What the explorer asks of the outside world, apart from rendering: the worker's analysis of a text, the L_b it
 * skipped (scored when τ_f goes below the analysis' τ_min), and the bundled corpus samples (fetched from the page's origin).
 */
import type { Doc } from '../../../../pipeline/core/document.ts';
import type { Analysis, AnalyzeParams, FillResult } from '../../analysis-types.ts';
import type { ModelClient, Progress } from '../../model-client.ts';
import type { ExplorerState } from './state.ts';

/**
 * The worker's request for one run over `text` with the settings' tools, k, m, date and own call (seed 1, as the page
 * always used), scored in two passes down to the slider's τ_f (any higher τ_f re-judges without the model; a lower one
 * asks fillCallOnly first). The explorer bench (pipeline/bench/explorer.ts) sends the same.
 */
export function analyzeParams(settings: ExplorerState, text: string): AnalyzeParams {
  return {
    text,
    tools: [...(settings.tools ?? [])],
    k: settings.k,
    m: settings.m,
    seed: 1,
    date: settings.date || undefined,
    own: settings.own ?? undefined,
    lmContext: settings.lmContext,
    programmatic: settings.programmatic,
    tauMin: settings.tauF,
  };
}

/** One model run over `text` (analyzeParams). */
export function analyze(client: ModelClient, settings: ExplorerState, text: string, progress: Progress): Promise<Analysis> {
  return client.request('analyze', { params: analyzeParams(settings, text) }, progress);
}

/** Score the L_b `analysis` lacks down to `tauMin` (below its τ_min): the changed candidates come back. */
export function fillCallOnly(client: ModelClient, analysis: Analysis, tauMin: number, progress: Progress): Promise<FillResult> {
  return client.request('fillCallOnly', { params: { analysis, tauMin } }, progress);
}

/** The bundled corpus samples (same origin; a missing or unreadable file gives none, bad lines are skipped). */
export async function loadSamples(): Promise<Doc[]> {
  const r = await fetch(new URL('./corpus/sample.jsonl', location.href));
  const body = r.ok ? await r.text() : '';
  return body.split('\n').filter((l) => l.trim()).flatMap((l) => {
    try {
      return [JSON.parse(l) as Doc];
    } catch {
      return [];
    }
  });
}

/** Explorer texts stay short: a sample's first ~600 characters, cut at a sentence end when possible. */
export function sampleText(doc: Doc): string {
  const cut = doc.text.slice(0, 600);
  return cut.lastIndexOf('. ') > 200 ? cut.slice(0, cut.lastIndexOf('. ') + 1) : cut;
}
