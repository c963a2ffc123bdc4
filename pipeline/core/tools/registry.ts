import { Calculator } from './calculator.ts';
import { Calendar } from './calendar.ts';
import { createEldDetector } from './language-id.ts';
import { createQA, type KnowledgeBase } from './qa.ts';
import type { Tool } from './tool.ts';
import { Translate, type LanguageDetector, type TranslationEngine } from './translate.ts';

/**
 * The only way to reach a tool: a generated name must be one of the registered names, exactly (case matters:
 * "calculator" is not "Calculator"). Anything else is rejected with a reason, never dispatched.
 */
export class ToolRegistry {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`two tools named ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
  }

  /** Registered names, in registration order. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  get(name: string): Tool | undefined {
    // Map lookup, not property access: "__proto__" or "constructor" can never resolve to anything.
    return this.byName.get(name);
  }

  /** The tool, or why a (generated) name is refused. */
  resolve(name: string): { ok: true; tool: Tool } | { ok: false; error: string } {
    const tool = this.byName.get(name);
    if (tool) return { ok: true, tool };
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    return { ok: false, error: `unknown tool ${shown} (known: ${this.names.join(', ')})` };
  }
}

export interface DefaultToolsOptions {
  /** pipeline/data/kb.json, parsed. */
  kb: KnowledgeBase;
  /** Node: `await createApertiumEngine()` (pipeline/node/apertium.ts). Absent → Translate answers "not installed". */
  translationEngine?: TranslationEngine;
  /** @default eld 'medium' (language-id.ts) */
  languageDetector?: LanguageDetector;
}

/** The paper's four tools: Calculator, Calendar, QA, and Translate (the paper's MT). */
export function createDefaultTools(options: DefaultToolsOptions): Tool[] {
  return [
    new Calculator(),
    new Calendar(),
    createQA(options.kb),
    new Translate({ detector: options.languageDetector ?? createEldDetector(), engine: options.translationEngine }),
  ];
}
