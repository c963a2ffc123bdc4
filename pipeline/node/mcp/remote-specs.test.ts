import { describe, expect, it } from 'vitest';
import { parseCall } from '../../core/call-syntax.ts';
import { ToolRegistry } from '../../core/tools/registry.ts';
import type { McpConnection, RemoteTool } from './client.ts';
import { callName, mcpPrompt, remoteToolSpec } from './remote-specs.ts';
import { FIXTURE_TOOL, WORD_COUNT_TOOL } from './testing/fixture-server.ts';

/** A connection that records its calls (the real one is tested against real servers in client.test.ts). */
function recording(tools: RemoteTool[]): McpConnection & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    server: 'node fixture.js',
    tools,
    calls,
    async call(name, args) {
      calls.push({ name, args });
      return { ok: true, value: 'done' };
    },
    close: async () => undefined,
  };
}

describe('remoteToolSpec', () => {
  it('a tool with one required string property: quoted syntax, restricted schema, the server recorded', () => {
    const r = remoteToolSpec(recording([FIXTURE_TOOL]), FIXTURE_TOOL, new Set(['Calculator']));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.spec).toMatchObject({
      name: 'UnitConvert',
      description: 'Converts a quantity between units of length, mass, volume or temperature.',
      argument: { syntax: 'quoted', property: 'query' },
      parameters: {
        type: 'object',
        properties: { query: { type: 'string', description: 'a number, its unit, "in", and the target unit', maxLength: 60 } },
        required: ['query'],
        additionalProperties: false,
      },
      server: 'node fixture.js',
      thresholds: { tauS: 0.05, tauF: 1, k: 5, m: 5 },
    });
  });

  it('runs through tools/call with the argument in its property, and passes the registry (Ajv strict)', async () => {
    const connection = recording([WORD_COUNT_TOOL]);
    const r = remoteToolSpec(connection, WORD_COUNT_TOOL, new Set());
    if (!r.ok) throw new Error(r.error);
    const registry = new ToolRegistry([r.spec]);
    expect(registry.schemaError('WordCount', 'hello world')).toBeNull();
    expect(registry.schemaError('WordCount', 'x'.repeat(201))).toMatch(/200 characters/);
    expect(await registry.get('WordCount')!.run('hello world', { doc: { id: 'd' } })).toEqual({ ok: true, value: 'done' });
    expect(connection.calls).toEqual([{ name: 'WordCount', args: { text: 'hello world' } }]);
  });

  it('a tool without arguments is Tool(); one with two required arguments is refused with a reason', () => {
    const none = remoteToolSpec(recording([]), { name: 'Now', description: 'The time.', inputSchema: { type: 'object' } }, new Set());
    expect(none.ok && none.spec.argument).toEqual({ syntax: 'none' });
    const two = remoteToolSpec(recording([]), {
      name: 'Add',
      description: 'Adds.',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    }, new Set());
    expect(two).toEqual({ ok: false, tool: 'Add', error: expect.stringMatching(/do not fit a call's one argument/) });
  });

  it('a name clash with a tool of the run is refused, never shadowed', () => {
    const r = remoteToolSpec(recording([]), { ...FIXTURE_TOOL, name: 'Calculator' }, new Set(['Calculator']));
    expect(r).toEqual({ ok: false, tool: 'Calculator', error: 'Calculator is already a tool of this run' });
  });
});

describe('callName', () => {
  it('keeps call-syntax names, maps the others', () => {
    expect(callName('UnitConvert')).toBe('UnitConvert');
    expect(callName('get-weather')).toBe('get_weather');
    expect(callName('github.search/issues')).toBe('github_search_issues');
    expect(callName('3d')).toBe('T3d');
    expect(callName('x'.repeat(40))).toHaveLength(32);
  });
});

describe('mcpPrompt', () => {
  it("the paper's shape from the description and the schema's example; its example call parses", () => {
    const prompt = mcpPrompt('WordCount', 'Counts the words in a text.', 'text', 'the text whose words are counted', 'hello world');
    expect(prompt.variants[0]('It rained.')).toBe(
      'Your task is to add calls to a WordCount API to a piece of text. Counts the words in a text. The calls should help you ' +
        'get information required to complete the text. You can call the API by writing "[WordCount(text)]" where "text" is ' +
        'the text whose words are counted.\n\nInput: hello world.\nOutput: hello world [WordCount("hello world")].\n\n' +
        'Input: It rained.\nOutput: ',
    );
    expect(prompt.variants[1]('It rained.')).toBe('Add WordCount calls to the text. Example: hello world [WordCount("hello world")].\nInput: It rained.\nOutput: ');
    expect(prompt.variants.at(-1)!('x')).toBe('');
    expect(parseCall('[WordCount("hello world")]')).toEqual({ ok: true, call: { tool: 'WordCount', input: 'hello world' } });
  });
});
