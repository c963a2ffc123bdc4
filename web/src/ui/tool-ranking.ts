/**
 * Tool retrieval on the page (issue 30, ToolLLM's API retriever): the explorer's text → the tools ranked for it by BM25
 * over their name, description and documentation — pipeline/core/retrieval/bm25.ts, the code `toolformer retrieve
 * --retriever bm25` and `annotate --tool-retrieval k --retriever bm25` run in Node — among the app's built-in tools
 * and, when the box is checked, the mathjs catalog's 215. BM25 reads words only, so it needs no model: it runs in a
 * worker of the model worker's own script, started when the panel is first opened (src/tool-ranker.ts), so the page
 * bundles none of the tools' modules or mathjs. The dense and fused retrievers need the
 * LM's hidden states and a projection trained per run (Node: `toolformer retrieve --retriever fusion`).
 *
 * The list keeps the ranking it shows, unrounded, as JSON on its `data-ranking` attribute (names and scores): the
 * browser test compares it with Node's ranking of the same text over the same tools. The built-in tools are always
 * ranked with the catalog: those outside the top 8 follow it with their place (or "not ranked"). The status line says
 * what a score means, and "no tool matched" when BM25 ranks none.
 */
import type { RankedTool } from '../../../pipeline/core/retrieval/retriever.ts';
import { ModelClient } from '../model-client.ts';
import { fmt, h } from './dom.ts';

export interface ToolRanking {
  /** Rank the tools for `text` (after a short pause in typing). */
  show(text: string): void;
}

/** Tools shown, at most. */
const SHOWN = 8;

export function mountToolRanking(root: HTMLElement, initialText: string): ToolRanking {
  const catalogBox = h('input', { type: 'checkbox', id: 'tr-catalog', 'data-testid': 'tr-catalog', checked: true });
  const list = h('ol', { class: 'ranking', 'data-testid': 'tr-ranking', 'aria-live': 'polite' });
  // The built-in tools are always ranked with the catalog: those outside the top are listed after it with their place.
  const builtInList = h('ol', { class: 'ranking', 'data-testid': 'tr-builtin' });
  const status = h('p', { class: 'muted', 'data-testid': 'tr-status' }, 'loading the retriever and the tools\' docs…');
  // Folded until opened: the ranking worker (the registry's tools with their text heuristics, mathjs and its docs) starts
  // only for a user who looks.
  const details = h('details', { 'data-testid': 'tr-details' },
    h('summary', {}, 'Which tools fit this text: tool retrieval (BM25 over the tools\' docs)'),
    h('label', { class: 'inline', for: 'tr-catalog', title: 'mathjs\'s documented functions as tools (annotate --catalog mathjs)' },
      catalogBox, ' with the mathjs catalog (215 tools)'),
    list,
    builtInList,
    status);
  root.append(details);

  /** The ranking worker: the model worker's script, asked only `rankTools` (no model is loaded in it). */
  let client: ModelClient | null = null;
  const rank = (text: string, withCatalog: boolean) =>
    (client ??= new ModelClient(() => new Worker(new URL('../worker.ts', import.meta.url), { type: 'module', name: 'tool-ranking' })))
      .request('rankTools', { text, withCatalog });

  let text = initialText;
  let shown = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const update = async (): Promise<void> => {
    const id = ++shown;
    const withCatalog = catalogBox.checked;
    try {
      const ranker = await rank(text, withCatalog);
      if (id !== shown) return; // a newer text or tool set is on its way
      const { ranking: all, ms } = ranker;
      const ranking = all.slice(0, SHOWN);
      render(ranking, ranker.builtIn.filter((name) => !ranking.some((r) => r.name === name)).map((name) => {
        const at = all.findIndex((r) => r.name === name);
        return { name, rank: at < 0 ? null : at + 1, score: at < 0 ? null : all[at].score };
      }).sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity)));
      status.textContent = ranking.length === 0
        ? `no tool matched: none of the ${ranker.tools} tools shares a word with the text (BM25 reads words only)`
        : `BM25 over ${ranker.tools} tools, ${fmt(ms)} ms: the top ${ranking.length}. Score = ${ranker.scale}.`;
      status.dataset.tools = String(ranker.tools);
      status.dataset.done = String(id);
    } catch (e) {
      status.textContent = `tool retrieval failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  };
  const render = (ranking: RankedTool[], builtIn: { name: string; rank: number | null; score: number | null }[]): void => {
    list.dataset.ranking = JSON.stringify(ranking);
    builtInList.dataset.ranks = JSON.stringify(builtIn);
    const best = ranking[0]?.score || 1;
    list.replaceChildren(...ranking.map((r, i) =>
      h('li', { 'data-testid': `tr-tool-${i}` },
        h('span', { class: 'name' }, r.name),
        h('span', { class: 'bar', style: `width: ${Math.round((100 * r.score) / best)}px` }),
        h('span', { class: 'score' }, fmt(r.score)))));
    builtInList.replaceChildren(...builtIn.map((b) => (b.rank === null
      ? h('li', { class: 'unranked' }, h('span', { class: 'name' }, b.name), h('span', { class: 'score' }, 'not ranked: no shared word'))
      : h('li', { value: String(b.rank) }, h('span', { class: 'name' }, b.name), h('span', { class: 'score' }, fmt(b.score!))))));
  };
  catalogBox.addEventListener('change', () => void update());
  details.addEventListener('toggle', () => {
    if (details.open) void update();
  });
  return {
    show(next) {
      text = next;
      clearTimeout(timer);
      if (details.open) timer = setTimeout(() => void update(), 150);
    },
  };
}
