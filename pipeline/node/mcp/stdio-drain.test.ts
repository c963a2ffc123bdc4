/**
 * `toolformer mcp` over stdio, driven by hand (newline-delimited JSON-RPC), when the client closes stdin right after a
 * `tools/call`: the call still answers on stdout before the server exits (spec 2025-06-18, "Lifecycle › Shutdown":
 * the client closes the server's input and waits for it to exit). The first Calculator call loads mathjs (seconds),
 * so the call is in flight when stdin's end arrives; a client that never closes stdout's reading end reads it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';
import { childProgress, TEST_CAP_MS, whileProgressing } from '../testing/progress.ts';

const BIN = 'pipeline/node/bin.mjs';

/** The JSON-RPC lines of a client that initializes, asks `calls`, and then closes stdin at once. */
function session(calls: { id: number; name: string; arguments: object }[]): string {
  const messages = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'eof-client', version: '1.0.0' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...calls.map(({ id, ...params }) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })),
  ];
  return messages.map((m) => `${JSON.stringify(m)}\n`).join('');
}

/** Start `toolformer mcp`, write `input`, close its stdin, and collect what it says until it exits. */
async function runToEof(input: string): Promise<{ code: number | null; responses: Map<number, { result?: { content: { text: string }[]; isError?: boolean } }>; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  child.stdin.end(input);
  const code = await whileProgressing(exited, childProgress(child), { what: 'toolformer mcp', child, lastWords: () => stderr });
  const responses = new Map(stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line)).map((m) => [m.id as number, m]));
  return { code, responses, stderr };
}

describe('toolformer mcp over stdio: stdin closed right after a tools/call', () => {
  it('answers the calls in flight, then exits 0 saying the client closed stdin', async () => {
    const { code, responses, stderr } = await runToEof(session([
      { id: 2, name: 'Calculator', arguments: { expression: '400 / 1400' } },
      { id: 3, name: 'QA', arguments: { question: 'What is the capital of France?' } },
    ]));
    expect(responses.get(1)).toMatchObject({ result: { serverInfo: { name: 'toolformer' } } });
    expect(responses.get(2)?.result?.content.map((c) => c.text).join('')).toBe('0.29');
    expect(responses.get(3)?.result?.isError).toBeFalsy();
    expect(responses.get(3)?.result?.content.map((c) => c.text).join('')).toMatch(/Paris/);
    expect(stderr).toContain('toolformer mcp: the client closed stdin, shutting down');
    expect(code).toBe(0);
  }, TEST_CAP_MS);

  it('with nothing in flight it exits at once, as before', async () => {
    const { code, responses, stderr } = await runToEof(session([]));
    expect([...responses.keys()]).toEqual([1]);
    expect(stderr).toContain('toolformer mcp: the client closed stdin, shutting down');
    expect(code).toBe(0);
  }, TEST_CAP_MS);
});
