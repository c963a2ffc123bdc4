/**
 * An MCP server's tools as ToolSpecs, so an annotate run treats them like its own: the name, description and
 * argument schema come from `tools/list`; the prompt P(x) is the paper's shape (instruction, one example, the text)
 * built from the description and the schema (its `examples`); calls run through `tools/call` inside the pipeline's
 * executor (its concurrency, timeout, caps, errors as values). Nothing in the project knows the tool, so there is no
 * proposer written for it: calls are sampled by the LM from that prompt, and the schema's own example arguments are
 * proposed where every word of one already appears before the position (the default leakage rule, which also guards
 * the LM's samples). A small LM that cannot yet follow a few-shot prompt still gets candidates to judge.
 *
 * The call syntax has one positional argument, so a tool fits when its schema has no properties (`Tool()`) or one
 * string property that is the only required one (`Tool("…")`, the others left out). Any other tool is refused with
 * a reason, and the run goes on without it.
 */
import { escapeCallText } from '../../core/call-syntax.ts';
import type { ToolPrompt } from '../../core/tools/prompts.ts';
import { defaultLeak } from '../../core/stages/leakage.ts';
import { MAX_PROPOSALS, type ObjectSchema, PAPER_DEFAULTS, type ToolSpec } from '../../core/tools/spec.ts';
import type { McpConnection, RemoteTool } from './client.ts';

/** Longest description kept for prompts (one line). */
const MAX_DESCRIPTION = 300;
/** A backstop for the SDK's own request timeout: the executor's timeout aborts the call long before. */
const SDK_TIMEOUT_MS = 60_000;
const CALL_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

export type RemoteSpecResult = { ok: true; spec: ToolSpec } | { ok: false; tool: string; error: string };

/**
 * The ToolSpec for one tool of `connection`. `taken`: names already in the run (built-in tools, other servers'
 * tools); a clash is refused, never shadowed.
 */
export function remoteToolSpec(connection: McpConnection, tool: RemoteTool, taken: ReadonlySet<string>): RemoteSpecResult {
  const refuse = (error: string): RemoteSpecResult => ({ ok: false, tool: tool.name, error });
  const name = callName(tool.name);
  if (!name) return refuse(`the name ${JSON.stringify(tool.name)} cannot be written as a call`);
  if (taken.has(name)) return refuse(`${name} is already a tool of this run`);
  const argument = argumentOf(tool.inputSchema);
  if ('error' in argument) return refuse(argument.error);

  const description = oneLine(tool.description).slice(0, MAX_DESCRIPTION) || `The ${name} tool of an MCP server.`;
  const property = argument.property;
  const examples = argument.examples ?? [];
  const parameters: ObjectSchema = property === undefined
    ? { type: 'object', properties: {}, additionalProperties: false }
    : { type: 'object', properties: { [property]: argument.schema }, required: [property], additionalProperties: false };

  return {
    ok: true,
    spec: {
      name,
      description,
      parameters,
      argument: property === undefined ? { syntax: 'none' } : { syntax: 'quoted', property },
      server: connection.server,
      create: () => ({
        run: (input, context) =>
          connection.call(tool.name, property === undefined ? {} : { [property]: input }, { timeoutMs: SDK_TIMEOUT_MS, signal: context.signal }),
      }),
      prompt: mcpPrompt(name, description, property, argument.schema?.description, examples[0]),
      thresholds: { ...PAPER_DEFAULTS },
      ...(examples.length > 0 ? { propose: (prefix: string) => examples.filter((e) => defaultLeak(name, e, prefix) === null) } : {}),
    },
  };
}

type ArgumentFit =
  | { property?: undefined; schema?: undefined; examples?: undefined }
  | { property: string; schema: ObjectSchema['properties'][string]; examples: string[] }
  | { error: string };

/** Which schema property the one positional argument fills, its (restricted) schema and an example value. */
function argumentOf(schema: RemoteTool['inputSchema']): ArgumentFit {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const names = Object.keys(properties);
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : [];
  if (names.length === 0 && required.length === 0) return {};
  const strings = names.filter((n) => isRecord(properties[n]) && properties[n].type === 'string');
  const property = required.length === 1 ? required[0] : required.length === 0 && strings.length === 1 ? strings[0] : undefined;
  if (property === undefined || !strings.includes(property)) {
    return { error: `its arguments (${names.join(', ') || 'none'}; required: ${required.join(', ') || 'none'}) do not fit a call's one argument: it needs one required string property, or none` };
  }
  const p = properties[property] as Record<string, unknown>;
  // Kept: what bounds the argument. Dropped: `pattern` (a third party's regular expression, compiled by Ajv, could
  // backtrack for ever) and `format`; the server still validates its own input.
  const restricted: ObjectSchema['properties'][string] = { type: 'string' };
  if (typeof p.description === 'string') restricted.description = oneLine(p.description).slice(0, MAX_DESCRIPTION);
  if (Number.isInteger(p.minLength) && (p.minLength as number) >= 0) restricted.minLength = p.minLength as number;
  if (Number.isInteger(p.maxLength) && (p.maxLength as number) >= 0) restricted.maxLength = p.maxLength as number;
  const examples = [
    ...(Array.isArray(p.examples) ? p.examples : []),
    ...(Array.isArray(schema.examples) ? schema.examples.map((e) => (isRecord(e) ? e[property] : undefined)) : []),
    p.default,
  ];
  const fits = (e: unknown): e is string =>
    typeof e === 'string' && e.trim() !== '' && !/\n/.test(e) && e.length <= (restricted.maxLength ?? 100) && e.length >= (restricted.minLength ?? 0);
  return { property, schema: restricted, examples: [...new Set(examples.filter(fits))].slice(0, MAX_PROPOSALS) };
}

/**
 * P(x) for a tool known only by its description and schema, in decreasing length (positions.ts picks the first that
 * leaves a useful window in the model's context): the paper's shape — instruction, one example, the text —; the
 * example alone; a one-line instruction; nothing. The example puts the call after the words of its argument, as the
 * default leakage rule wants: `hello world [WordCount("hello world")].`
 */
export function mcpPrompt(name: string, description: string, property: string | undefined, argumentDescription: string | undefined, example: string | undefined): ToolPrompt {
  const flat = (x: string) => x.replace(/\s+/g, ' ');
  const usage = property === undefined
    ? `You can call the API by writing "[${name}()]".`
    : `You can call the API by writing "[${name}(${property})]" where "${property}" is ${argumentDescription ? lowerFirst(argumentDescription) : `its ${property}`}.`;
  const instruction = `Your task is to add calls to a ${name} API to a piece of text. ${withStop(description)} The calls should help you get information required to complete the text. ${usage}`;
  const call = property === undefined ? `[${name}()]` : `[${name}("${escapeCallText(example ?? '', '"')}")]`;
  const shown = property === undefined || example !== undefined ? { input: `${example ?? 'Here it is'}.`, output: `${example ?? 'Here it is'} ${call}.` } : undefined;
  const variants: ((input: string) => string)[] = [];
  if (shown) {
    variants.push((input) => `${instruction}\n\nInput: ${shown.input}\nOutput: ${shown.output}\n\nInput: ${flat(input)}\nOutput: `);
    variants.push((input) => `Add ${name} calls to the text. Example: ${shown.output}\nInput: ${flat(input)}\nOutput: `);
  } else {
    variants.push((input) => `${instruction}\n\nInput: ${flat(input)}\nOutput: `);
  }
  variants.push((input) => `Add ${name} calls to the text. Input: ${flat(input)}\nOutput: `, () => '');
  return { tool: name, variants };
}

/** An MCP tool name as a call-syntax name: other characters become "_", a leading non-letter gets "T". */
export function callName(name: string): string | undefined {
  if (CALL_NAME.test(name)) return name;
  let n = name.replace(/[^A-Za-z0-9_]/g, '_');
  if (!/^[A-Za-z]/.test(n)) n = `T${n}`;
  n = n.slice(0, 32);
  return CALL_NAME.test(n) && /[A-Za-z0-9]/.test(n.slice(1) || n) ? n : undefined;
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const withStop = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);
const lowerFirst = (s: string) => {
  const t = oneLine(s).replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(t) ? t[0].toLowerCase() + t.slice(1) : t;
};
