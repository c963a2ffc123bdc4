/**
 * Tool catalogs: many tools at once, beside the registry's own four (registry.ts). A run adds one with
 * `--catalog <name>` (annotate, retrieve, mcp); the tools then go through the same registry, executor and limits.
 */
import type { ToolRunner, ToolSpec } from '../spec.ts';

/**
 * Runs a catalog's calls somewhere else — on Node, worker threads with a heap limit and a deadline
 * (node/tools/isolated-calls.ts) — given the catalog's `evaluator`. Passed in by the platform, never sniffed; without one a
 * call runs in-process under the catalog's own bounds.
 */
export interface CatalogIsolation {
  /** The runner of one tool: `evaluator` called with (tool name, argument text) elsewhere. */
  runner(tool: string): ToolRunner;
}

export interface ToolCatalog {
  readonly name: string;
  /** One line, for `--help`. */
  readonly description: string;
  /**
   * The synchronous function a call runs, for an isolation to load elsewhere: the module (URL) and its export,
   * called as `(tool, argumentText) → ToolResult`; `warm`, one call that pays the module's first-use cost.
   */
  readonly evaluator: { module: string; exportName: string; warm: [string, string] };
  /**
   * The catalog's tools (built on first call, then the same array). Its library is imported only here: a run without
   * --catalog never loads it (mathjs's module alone costs 1–2 CPU s, paid before the first document when it was
   * imported with the plan).
   */
  load(isolation?: CatalogIsolation): Promise<readonly ToolSpec[]>;
}

export const CATALOGS: readonly ToolCatalog[] = [
  {
    name: 'mathjs',
    description: "mathjs's documented functions (215 of 237), run under the Calculator's sandbox rules",
    evaluator: { module: new URL('./mathjs/sandbox.ts', import.meta.url).href, exportName: 'runMathjs', warm: ['add', '1, 1'] },
    load: (isolation) => import('./mathjs/index.ts').then((m) => isolated(m.mathjsSpecs(), isolation)),
  },
];

/** The catalog named `name`, or an error naming the known ones. */
export function catalogNamed(name: string): ToolCatalog {
  const found = CATALOGS.find((c) => c.name === name);
  if (!found) throw new Error(`--catalog: unknown catalog ${JSON.stringify(name)} (known: ${CATALOGS.map((c) => c.name).join(', ')})`);
  return found;
}

/** `specs` whose calls run through `isolation` (the same specs when there is none). */
function isolated(specs: readonly ToolSpec[], isolation?: CatalogIsolation): readonly ToolSpec[] {
  return isolation ? specs.map((spec) => ({ ...spec, create: () => isolation.runner(spec.name) })) : specs;
}
