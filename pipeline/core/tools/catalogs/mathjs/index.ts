/**
 * The mathjs catalog: mathjs's own functions as tools, one ToolSpec per function, named as mathjs names it (`gcd`,
 * `stirlingS2`), documented from the docs mathjs ships (`math.help(name)`: category, syntax, description, examples,
 * see-also) and run in sandbox.ts. A call is the function call itself: `[gcd(8, 12) -> 4]`, its one argument the
 * argument list `8, 12` (`{"args": "8, 12"}` over MCP). mathjs 15 documents 237 functions; NOT_SERVED says why each
 * of the 22 left out is left out, so the catalog serves 215.
 */
import * as mathjs from 'mathjs';
import { paperPrompt } from '../../prompts.ts';
import { PAPER_DEFAULTS, type ToolDocumentation, type ToolSpec } from '../../spec.ts';
import { DISABLED, MAX_ARGUMENTS_LENGTH, runMathjs } from './sandbox.ts';

/** mathjs's embedded documentation of one name, as `math.help(name).doc` gives it. */
interface MathjsDoc {
  name: string;
  category: string;
  syntax: string[];
  /** One string, or (diff) its sentences. */
  description: string | string[];
  examples: string[];
  seealso?: string[];
}

const PARSER = 're-enters the expression parser or extends the instance';
const SYMBOLIC = 'symbolic: its argument is an expression for the parser';
const CALLBACK = 'takes a callback, and function definitions are refused';
/** Documented functions not served, and why. */
export const NOT_SERVED: Readonly<Record<string, string>> = {
  ...Object.fromEntries(DISABLED.map((name) => [name, PARSER])),
  config: 'changes the instance', typed: 'extends the instance',
  simplifyConstant: SYMBOLIC, simplifyCore: SYMBOLIC, rationalize: SYMBOLIC, leafCount: SYMBOLIC, symbolicEqual: SYMBOLIC,
  filter: CALLBACK, forEach: CALLBACK, map: CALLBACK, mapSlices: CALLBACK, matrixFromFunction: CALLBACK, solveODE: CALLBACK,
};

/** The argument property of every catalog tool. */
export const ARGUMENTS_PROPERTY = 'args';

let specs: readonly ToolSpec[] | undefined;

/** The catalog's tools, in mathjs's documentation order (built once; the sandbox's instance is made on first call). */
export function mathjsSpecs(): readonly ToolSpec[] {
  specs ??= documentedFunctions().map(mathjsSpec);
  return specs;
}

/** mathjs's documented functions that the catalog serves. */
function documentedFunctions(): MathjsDoc[] {
  const docs = (mathjs as unknown as { docs: Record<string, MathjsDoc> }).docs;
  const functions = mathjs as unknown as Record<string, unknown>;
  return Object.entries(docs)
    .filter(([name, doc]) => doc.name === name && typeof functions[name] === 'function' && !Object.hasOwn(NOT_SERVED, name))
    .map(([, doc]) => doc);
}

function mathjsSpec(doc: MathjsDoc): ToolSpec {
  const documentation: ToolDocumentation = { category: doc.category, syntax: doc.syntax, examples: doc.examples, seeAlso: doc.seealso ?? [] };
  const example = doc.examples.map((line) => callIn(doc.name, line)).find((call) => call !== undefined);
  const shown = example && runMathjs(doc.name, example);
  const description = oneLine([doc.description].flat().join(' '));
  return {
    name: doc.name,
    description: `${withStop(description)} mathjs ${doc.category}: ${doc.syntax.join('; ')}.`,
    parameters: {
      type: 'object',
      properties: {
        [ARGUMENTS_PROPERTY]: {
          type: 'string',
          // No maxLength here: the sandbox refuses text over MAX_ARGUMENTS_LENGTH as the tool's own error (an MCP
          // result with isError), where a schema's cap would be a protocol error the model never reads.
          description: `the arguments in mathjs syntax, as in ${doc.syntax[0] ?? `${doc.name}(x)`} (at most ${MAX_ARGUMENTS_LENGTH} characters)`,
        },
      },
      required: [ARGUMENTS_PROPERTY],
      additionalProperties: false,
    },
    argument: { syntax: 'raw', property: ARGUMENTS_PROPERTY },
    documentation,
    create: () => ({ run: async (input) => runMathjs(doc.name, input) }),
    prompt: paperPrompt(
      doc.name,
      `Your task is to add calls to the ${doc.name} API to a piece of text. ${withStop(description)} You can call the API by writing "[${doc.name}(${ARGUMENTS_PROPERTY})]" where "${ARGUMENTS_PROPERTY}" are its arguments.`,
      shown && shown.ok
        ? { input: `${doc.name}(${example}) is ${shown.value}.`, output: `${doc.name}(${example}) is [${doc.name}(${example})] ${shown.value}.` }
        : { input: `${withStop(description)}`, output: `${withStop(description)}` },
    ),
    thresholds: { ...PAPER_DEFAULTS },
  };
}

/** The argument text of `line` when it is a call of `name` alone: `gcd(8, 12)` → `8, 12`; else undefined. */
function callIn(name: string, line: string): string | undefined {
  const match = new RegExp(`^${name}\\((.*)\\)$`).exec(line.trim());
  return match?.[1];
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();
const withStop = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);
