/**
 * What the explorer asks of the outside world, apart from rendering: the worker's analysis of a text, and the
 * bundled corpus samples (fetched from the page's origin).
 */
import type { Doc } from '../../../../pipeline/core/document.ts';
import type { Analysis } from '../../analysis-types.ts';
import type { ModelClient, Progress } from '../../model-client.ts';
import type { ExplorerState } from './state.ts';

/** One model run over `text` with the settings' tools, k, m, date and own call (seed 1, as the page always used). */
export function analyze(client: ModelClient, settings: ExplorerState, text: string, progress: Progress): Promise<Analysis> {
  return client.request(
    'analyze',
    {
      params: {
        text,
        tools: [...(settings.tools ?? [])],
        k: settings.k,
        m: settings.m,
        seed: 1,
        date: settings.date || undefined,
        own: settings.own ?? undefined,
        lmContext: settings.lmContext,
        programmatic: settings.programmatic,
      },
    },
    progress,
  );
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
