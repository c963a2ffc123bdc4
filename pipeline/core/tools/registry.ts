import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { calculator } from './calculator/index.ts';
import { calendar } from './calendar/index.ts';
import { qa } from './qa/index.ts';
import { argumentsOf, type Tool, type ToolResources, type ToolSpec } from './spec.ts';
import { translate } from './translate/index.ts';

/**
 * The only list of tools: the paper's Calculator, QA, Calendar and Translate (its MT). Config, CLI, stats, bench and
 * the web app read this list; adding a tool is one folder (tools/<name>/index.ts exporting a ToolSpec) and one line
 * here.
 */
export const TOOL_SPECS: readonly ToolSpec[] = [calculator, qa, calendar, translate];

/**
 * The paper's four tools by role, for code that builds data or tasks for one of them (train/, eval/): it reads them
 * here rather than importing a tool's folder, and takes the name from the spec (`PAPER_TOOLS.qa.name`).
 */
export const PAPER_TOOLS = { calculator, qa, calendar, translate } as const satisfies Record<string, ToolSpec>;

/** The registered names, in registry order. */
export const TOOL_NAMES: readonly string[] = TOOL_SPECS.map((s) => s.name);

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/**
 * The only way to reach a tool: a generated name must be one of the registered names, exactly (case matters:
 * "calculator" is not "Calculator"), and its argument must pass the tool's JSON Schema. Anything else is rejected
 * with a reason, never dispatched. Schemas are compiled here, once (Ajv generates the validators at construction,
 * so no code is generated while calls run).
 */
export class ToolRegistry {
  private readonly byName = new Map<string, { tool: Tool; validate: ValidateFunction }>();

  /** `resources`: what the platform hands the tools (kb, translationEngine, languageDetector); see spec.ts. */
  constructor(specs: readonly ToolSpec[] = TOOL_SPECS, resources: ToolResources = {}) {
    const ajv = new Ajv({ strict: true, allErrors: false });
    for (const spec of specs) {
      if (!NAME.test(spec.name)) throw new Error(`tool name ${JSON.stringify(spec.name)} is not a call-syntax name`);
      if (this.byName.has(spec.name)) throw new Error(`two tools named ${spec.name}`);
      if (spec.argument.property !== undefined && !(spec.argument.property in spec.parameters.properties)) {
        throw new Error(`${spec.name}: argument property "${spec.argument.property}" is not in its schema`);
      }
      const runner = spec.create(resources);
      const tool: Tool = { ...spec, run: (input, context) => runner.run(input, context), load: async () => runner.load?.() };
      this.byName.set(spec.name, { tool, validate: ajv.compile(spec.parameters) });
    }
  }

  /** Registered names, in registration order. */
  get names(): string[] {
    return [...this.byName.keys()];
  }

  /** The registered tools, in registration order. */
  get tools(): Tool[] {
    return [...this.byName.values()].map((e) => e.tool);
  }

  get(name: string): Tool | undefined {
    // Map lookup, not property access: "__proto__" or "constructor" can never resolve to anything.
    return this.byName.get(name)?.tool;
  }

  /** The tool, or why a (generated) name is refused. */
  resolve(name: string): { ok: true; tool: Tool } | { ok: false; error: string } {
    const entry = this.byName.get(name);
    if (entry) return { ok: true, tool: entry.tool };
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    return { ok: false, error: `unknown tool ${shown} (known: ${this.names.join(', ')})` };
  }

  /** Null when `input` is a valid argument for the registered tool `name`, else the schema's complaint. */
  schemaError(name: string, input: string): string | null {
    const entry = this.byName.get(name);
    if (!entry) return `unknown tool ${JSON.stringify(name)}`;
    return this.argumentsError(name, argumentsOf(entry.tool, input));
  }

  /** The same check for an arguments object as MCP's `tools/call` sends it: null when valid, else the complaint. */
  argumentsError(name: string, args: unknown): string | null {
    const entry = this.byName.get(name);
    if (!entry) return `unknown tool ${JSON.stringify(name)}`;
    if (entry.validate(args)) return null;
    return describeErrors(entry.validate.errors ?? []);
  }
}

/** "expression must NOT have fewer than 1 characters", "arguments must NOT have additional properties (argument)". */
function describeErrors(errors: readonly ErrorObject[]): string {
  const e = errors[0];
  if (!e) return 'invalid arguments';
  const where = e.instancePath === '' ? 'arguments' : e.instancePath.slice(1);
  const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})` : '';
  return `${where} ${e.message ?? 'invalid'}${extra}`;
}

/** The registered spec named `name`, if any. */
export function toolSpec(name: string): ToolSpec | undefined {
  return TOOL_SPECS.find((s) => s.name === name);
}

