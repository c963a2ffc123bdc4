import { describe, expect, it } from 'vitest';
import type { CausalLM } from '../../pipeline/core/lm/lm.ts';
import type { KnowledgeBase } from '../../pipeline/core/tools/qa/qa.ts';
import kb from '../../pipeline/data/kb.json' with { type: 'json' };
import { browserParts } from './browser-parts.ts';
import { TOOL_SPECS } from './tool-specs.ts';
import { analyzeText } from './worker-explorer.ts';

/**
 * The explorer's own call with a tool the page does not have (issue 49: `Weather` vanished from the count with no
 * word): the run stops before the model is asked anything, with one message naming the tool and the page's tools.
 * The page's own-call box lists only those tools; a URL's ?own= can still name another.
 */
describe("the explorer's own call", () => {
  it('with an unknown tool: one message naming it and the tools, nothing run', async () => {
    const untouched = new Proxy({}, { get: (_, key) => { throw new Error(`the model was used (${String(key)})`); } }) as CausalLM;
    const parts = browserParts({ lm: untouched, resources: { kb: kb as unknown as KnowledgeBase }, specs: TOOL_SPECS });
    const text = 'The forecast for Paris is sunny.';
    await expect(analyzeText(parts, { text, tools: ['Calculator'], k: 5, m: 0, seed: 1, own: { tool: 'Weather', input: 'Paris', at: 10 } }, () => {}))
      .rejects.toThrow(`your own call's tool "Weather" is not one of the page's tools: ${TOOL_SPECS.map((s) => s.name).join(', ')}`);
  });
});
