/**
 * What a retriever reads of a tool: its name in words, its description, and a catalog tool's documentation
 * (category, syntax, examples, see-also), from the ToolSpec alone — the same for built-in, catalog and MCP tools.
 */
import type { ToolSpec } from '../tools/spec.ts';

/** The parts of a spec a retriever reads. */
export type RetrievableTool = Pick<ToolSpec, 'name' | 'description' | 'parameters' | 'documentation'>;

export interface ToolText {
  name: string;
  /** The name in words: `stirlingS2` → "stirling s 2", `setIsSubset` → "set is subset". */
  nameWords: string;
  description: string;
  /** Category, syntax, examples, see-also and the argument's description, one string. */
  documentation: string;
}

export function toolText(tool: RetrievableTool): ToolText {
  const doc = tool.documentation;
  const argumentsText = Object.values(tool.parameters.properties).map((p) => p.description ?? '').join(' ');
  const documentation = doc
    ? [doc.category, ...doc.syntax, ...doc.examples, ...doc.seeAlso.map(nameWords)].join(' ; ')
    : argumentsText;
  return { name: tool.name, nameWords: nameWords(tool.name), description: tool.description, documentation };
}

/** `stirlingS2` → "stirling s 2", `log10` → "log 10", `QA` → "qa", `bitAnd` → "bit and". */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Za-z])(\d)/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase();
}

/** A catalog description without its trailing "mathjs <Category>: syntax…" part (syntax is not language). */
export function descriptionProse(description: string): string {
  return description.split(/ mathjs [A-Z]\w*:/)[0];
}
