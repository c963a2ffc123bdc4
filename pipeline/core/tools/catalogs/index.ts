/**
 * Tool catalogs: many tools at once, beside the registry's own four (registry.ts). A run adds one with
 * `--catalog <name>` (annotate, retrieve, mcp); the tools then go through the same registry, executor and limits.
 */
import type { ToolSpec } from '../spec.ts';

export interface ToolCatalog {
  readonly name: string;
  /** One line, for `--help`. */
  readonly description: string;
  /**
   * The catalog's tools (built on first call, then the same array). Its library is imported only here: a run without
   * --catalog never loads it (mathjs's module alone costs 1–2 CPU s, paid before the first document when it was
   * imported with the plan).
   */
  load(): Promise<readonly ToolSpec[]>;
}

export const CATALOGS: readonly ToolCatalog[] = [
  { name: 'mathjs', description: "mathjs's documented functions (215 of 237), run under the Calculator's sandbox rules", load: () => import('./mathjs/index.ts').then((m) => m.mathjsSpecs()) },
];

/** The catalog named `name`, or an error naming the known ones. */
export function catalogNamed(name: string): ToolCatalog {
  const found = CATALOGS.find((c) => c.name === name);
  if (!found) throw new Error(`--catalog: unknown catalog ${JSON.stringify(name)} (known: ${CATALOGS.map((c) => c.name).join(', ')})`);
  return found;
}
