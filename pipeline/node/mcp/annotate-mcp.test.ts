/**
 * `annotate --mcp` end to end, with the fixture MCP server as a real child process: its tools join the run, their
 * calls go out over `tools/call`, come back, are scored by the LM and land in calls.jsonl with the server's name;
 * a server that does not start, or hangs, is an error for its tools and the run goes on.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../core/default-config.ts';
import { FakeLM } from '../../core/testing/fake-lm.ts';
import { runAnnotate } from '../run/annotate-run.ts';
import { createNodeParts } from '../tools/parts.ts';
import { type CliResult, ROOT, runCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { type McpTools, UNREACHABLE_AFTER, connectMcpTools } from './run-tools.ts';
import { convert, countWords } from './testing/fixture-server.ts';

const FIXTURE = `${process.execPath} --import tsx pipeline/node/mcp/testing/fixture-server.ts`;
const tmp = mkdtempSync(join(tmpdir(), 'annotate-mcp-'));
const corpus = join(tmp, 'docs.jsonl');
writeFileSync(
  corpus,
  [
    { id: 'marathon', text: 'The marathon is 26.2 miles long. Converted, 26.2 miles in km is about 42 km, and most runners need four hours.' },
    { id: 'hello', text: 'Every programmer first prints hello world on the screen. A program that prints hello world has two words of output.' },
    { id: 'weights', text: 'The bag weighs 100 pounds. In metric units, 100 pounds in kg is about 45 kg, which is too heavy to carry far.' },
  ].map((d) => JSON.stringify(d)).join('\n') + '\n',
);
// Five documents that each say "hello world": enough calls for a hanging server to be given up on.
const hellos = join(tmp, 'hellos.jsonl');
writeFileSync(hellos, [1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: `hello${i}`, text: `Program ${i} prints hello world on the screen, then stops.` })).join('\n') + '\n');
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));

describe('toolformer annotate --mcp (the bundled model, a real fixture server and one that does not start)', () => {
  const out = join(tmp, 'cli');
  let result: CliResult;
  beforeAll(async () => {
    result = await runCli(
      ['annotate', corpus, '--tools', '', '--mcp', FIXTURE, '--mcp', '/nonexistent/mcp-server', '--mcp', `${FIXTURE} --mode garbage`, '--tau-s', '0', '--out', out, '--quiet'],
      ROOT,
    );
  }, TEST_CAP_MS);

  it('a server that does not start, or writes garbage, is one line on stderr each; the run goes on and succeeds', () => {
    expect(result.stderr).toMatch(/--mcp "\/nonexistent\/mcp-server": MCP server did not start: spawn \/nonexistent\/mcp-server ENOENT; going on without its tools/);
    const garbage = result.stderr.split('\n').filter((l) => l.includes('--mode garbage'));
    expect(garbage).toHaveLength(1);
    expect(garbage[0]).toMatch(/MCP server did not start: .*; going on without its tools/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/UnitConvert\s+3/);
    expect(result.stdout).toMatch(/WordCount\s+3/);
  });

  it("the fixture's calls ran over MCP and were scored: calls.jsonl has their results, losses and server", () => {
    const calls = lines(join(out, 'calls.jsonl'));
    const executed = calls.filter((c) => c.result !== undefined);
    expect(executed.length).toBeGreaterThan(0);
    // Every record of a server's tool names the server, whoever proposed it and whether it ran; none of another.
    for (const c of calls) expect(c.server).toBe(['UnitConvert', 'WordCount'].includes(c.tool) ? FIXTURE : undefined);
    for (const c of executed) {
      expect(['UnitConvert', 'WordCount']).toContain(c.tool);
      // Two-pass scoring: L_b only where L_a − L_c reaches τ_min; elsewhere the record holds the bound.
      if (c.losses.callOnly === undefined) {
        expect(Object.keys(c.losses)).toEqual(['noCall', 'withResult']);
        expect(c.usefulnessAtMost).toBeCloseTo(c.losses.noCall - c.losses.withResult, 3);
      } else {
        expect(Object.keys(c.losses)).toEqual(['noCall', 'callOnly', 'withResult']);
        expect(c.usefulness).toBeCloseTo(Math.min(c.losses.noCall, c.losses.callOnly) - c.losses.withResult, 3);
      }
    }
    // Results are the fixture server's, computed in its process ("26.2 miles in km" → "42.16 km", "hello world" → "2").
    for (const c of executed) expect(c.result).toBe(c.tool === 'WordCount' ? countWords(c.input) : (convert(c.input) as { value: string }).value);
    expect(new Set(executed.map((c) => c.tool))).toEqual(new Set(['UnitConvert', 'WordCount']));
    // The LM sampled calls at every position too (the bundled model's rarely parse; see the FakeLM run below).
    expect(calls.filter((c) => c.proposer === 'lm' && c.tool === 'WordCount').length).toBeGreaterThan(0);
  });

  it('config.json records the servers, their tools as used, and why one failed', () => {
    const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    expect(config.config.mcp).toEqual([FIXTURE, '/nonexistent/mcp-server', `${FIXTURE} --mode garbage`]);
    expect(config.config.tools).toEqual(['UnitConvert', 'WordCount']);
    expect(config.mcpServers[0].tools.map((t: { name: string }) => t.name)).toEqual(['UnitConvert', 'WordCount']);
    expect(config.mcpServers[1].error).toMatch(/ENOENT/);
    expect(config.mcpServers[2].error).toMatch(/did not start/);
  });
});

describe('runAnnotate with an MCP tool whose calls the LM samples', () => {
  // A character-level LM with chosen probabilities (core/testing/fake-lm.ts): " [" is likely right after "hello
  // world", and after " [" it writes the call of the few-shot example in its prompt, one character at a time.
  const CALL = 'WordCount("hello world")]';
  const lm = new FakeLM((context, next) => {
    const open = context.lastIndexOf(' [');
    const partial = open >= 0 ? context.slice(open + 2) : undefined;
    if (partial !== undefined && CALL.startsWith(partial) && partial.length < CALL.length) return next === CALL[partial.length] ? 1 : 0;
    if (next === ' [' && context.endsWith('hello world')) return 0.5;
    return undefined;
  });
  let mcp: McpTools;
  let hanging: McpTools;
  const hangWarnings: string[] = [];
  beforeAll(async () => {
    [mcp, hanging] = await Promise.all([
      connectMcpTools([FIXTURE], [], () => undefined, { cwd: ROOT }),
      connectMcpTools([`${FIXTURE} --mode hang`], [], (line) => hangWarnings.push(line), { cwd: ROOT }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([mcp?.close(), hanging?.close()]);
  });

  const run = async (tools: McpTools, name: string, timeoutMs = 5000, input = corpus, maxDocs = 2) => {
    const word = tools.specs.find((s) => s.name === 'WordCount')!;
    const config = defaultConfig({ tools: ['WordCount'], thresholds: { WordCount: { ...word.thresholds, k: 2, m: 2 } }, toolTimeoutMs: timeoutMs });
    const { parts } = await createNodeParts(lm, config, tools.specs);
    const outDir = join(tmp, name);
    const stats = await runAnnotate(parts, { inputs: [input], outDir, meta: {}, config, maxDocs });
    return { stats, calls: lines(join(outDir, 'calls.jsonl')) };
  };

  it('the sampled call is parsed, run over tools/call and scored with losses', async () => {
    const { stats, calls } = await run(mcp, 'fake-lm');
    const sampled = calls.filter((c) => c.proposer === 'lm' && c.result !== undefined);
    expect(sampled.length).toBeGreaterThan(0);
    for (const c of sampled) {
      expect(c).toMatchObject({ docId: 'hello', tool: 'WordCount', server: FIXTURE, input: 'hello world', raw: 'WordCount("hello world")', result: '2' });
      expect(c.losses.withResult).toBeGreaterThan(0);
    }
    expect(calls.filter((c) => c.reason === 'unclosed_call')).toEqual([]);
    expect(stats.tools.WordCount.byProposer.lm).toBeGreaterThan(0);
  });

  it('a server that hangs: its first calls time out, then one stderr line and no more calls to it; the run finishes', async () => {
    const { stats, calls } = await run(hanging, 'hang', 300, hellos, 5);
    expect(stats.docsRead).toBe(5);
    const ran = calls.filter((c) => c.input === 'hello world' && c.reason !== 'duplicate');
    const timedOut = ran.filter((c) => /^tool_error: timed out after 300 ms/.test(c.reason));
    const skipped = ran.filter((c) => /^tool_error: MCP server ".*--mode hang" stopped answering/.test(c.reason));
    expect(timedOut.length).toBeGreaterThanOrEqual(UNREACHABLE_AFTER);
    expect(skipped.length).toBeGreaterThan(0);
    expect(timedOut.length + skipped.length).toBe(ran.length);
    for (const c of ran) expect(c.server).toBe(`${FIXTURE} --mode hang`);
    expect(hangWarnings).toHaveLength(1);
    expect(hangWarnings[0]).toMatch(/stopped answering after 3 failed calls in a row .*; its tools are not called again in this run, which goes on/);
  });
});
