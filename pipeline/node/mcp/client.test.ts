/**
 * connectMcp against the fixture server (a real child process or HTTP server, same SDK): tools and calls, and every
 * way a third-party server can fail coming back as an error value naming it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';
import { type McpConnection, connectMcp, splitCommand } from './client.ts';
import { FIXTURE_TOOL, WORD_COUNT_TOOL, convert, countWords } from './testing/fixture-server.ts';

const FIXTURE = `${process.execPath} --import tsx pipeline/node/mcp/testing/fixture-server.ts`;

async function connected(target: string, timeoutMs?: number): Promise<McpConnection> {
  const c = await connectMcp(target, { cwd: ROOT, timeoutMs });
  if ('error' in c) throw new Error(c.error);
  return c;
}

describe('the fixture tools', () => {
  it('converts units, 2 decimals, and refuses what it cannot', () => {
    expect(convert('26.2 miles in km')).toEqual({ ok: true, value: '42.16 km' });
    expect(convert('100 F to C')).toEqual({ ok: true, value: '37.78 C' });
    expect(convert('1,000 pounds in kg')).toEqual({ ok: true, value: '453.59 kg' });
    expect(convert('3 kg in km')).toEqual({ ok: false, error: 'cannot convert mass to length' });
    expect(convert('three miles')).toMatchObject({ ok: false });
  });

  it('counts words', () => {
    expect(countWords('hello world')).toBe('2');
    expect(countWords("it's a well-known, 3-word test")).toBe('5');
  });
});

describe('connectMcp over stdio', () => {
  let c: McpConnection;
  beforeAll(async () => {
    c = await connected(FIXTURE);
  });
  afterAll(() => c?.close());

  it('lists the server tools with their schemas', () => {
    expect(c.tools).toEqual([FIXTURE_TOOL, WORD_COUNT_TOOL]);
  });

  it('calls a tool: text result, or isError as an error value', async () => {
    expect(await c.call('UnitConvert', { query: '26.2 miles in km' }, { timeoutMs: 5000 })).toEqual({ ok: true, value: '42.16 km' });
    expect(await c.call('UnitConvert', { query: '3 kg in km' }, { timeoutMs: 5000 })).toEqual({ ok: false, error: 'cannot convert mass to length' });
  });

  it('a protocol error (unknown tool) is an error value too', async () => {
    const r = await c.call('Nope', {}, { timeoutMs: 5000 });
    expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/Unknown tool: Nope/) });
  });
});

describe('connectMcp: servers that fail', () => {
  it('a command that does not exist', async () => {
    const c = await connectMcp('/nonexistent/mcp-server --flag', { cwd: ROOT, timeoutMs: 5000 });
    expect(c).toMatchObject({ server: '/nonexistent/mcp-server --flag', error: expect.stringMatching(/did not start.*ENOENT/) });
  });

  it('a server that exits at once, with its stderr tail in the message', async () => {
    const c = await connectMcp(`${process.execPath} -e "console.error('boom: no config'); process.exit(3)"`, { timeoutMs: 5000 });
    expect(c).toMatchObject({ error: expect.stringMatching(/did not start.*boom: no config/) });
  });

  it('a server that writes garbage on stdout', async () => {
    const c = await connectMcp(`${FIXTURE} --mode garbage`, { cwd: ROOT, timeoutMs: 10_000 });
    expect(c).toMatchObject({ error: expect.stringMatching(/did not start/) });
  });

  it('a server that never answers initialize times out', async () => {
    const c = await connectMcp(`${process.execPath} -e "setInterval(() => {}, 1000)"`, { timeoutMs: 1500 });
    expect(c).toMatchObject({ error: expect.stringMatching(/did not start: no answer within 1500 ms/) });
  });

  it('a tool call that hangs times out as an error value; the connection stays usable', async () => {
    const c = await connected(`${FIXTURE} --mode hang`);
    try {
      const r = await c.call('UnitConvert', { query: '1 km in m' }, { timeoutMs: 500 });
      expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/no answer within 500 ms/) });
      expect(c.tools.map((t) => t.name)).toEqual(['UnitConvert', 'WordCount']);
    } finally {
      await c.close();
    }
  });
});

describe('connectMcp over Streamable HTTP', () => {
  let child: ChildProcess;
  let url: string;
  beforeAll(async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'pipeline/node/mcp/testing/fixture-server.ts', '--http', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      child.stderr!.on('data', (d: Buffer) => {
        err += d;
        const m = /listening (\S+)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.on('exit', (code) => reject(new Error(`fixture exited ${code}: ${err}`)));
    });
  });
  afterAll(() => child?.kill('SIGTERM'));

  it('lists and calls', async () => {
    const c = await connected(url);
    try {
      expect(c.tools.map((t) => t.name)).toEqual(['UnitConvert', 'WordCount']);
      expect(await c.call('UnitConvert', { query: '5 gallons in litres' }, { timeoutMs: 5000 })).toEqual({ ok: true, value: '18.93 litres' });
    } finally {
      await c.close();
    }
  });

  it('a URL where nothing listens', async () => {
    const c = await connectMcp('http://127.0.0.1:9/mcp', { timeoutMs: 5000 });
    expect(c).toMatchObject({ error: expect.stringMatching(/did not start/) });
  });
});

describe('splitCommand', () => {
  it('splits words with quotes and backslashes, and nothing else', () => {
    expect(splitCommand(`node -e "console.log('a b')" x\\ y '$HOME' ""`)).toEqual({ ok: true, words: ['node', '-e', "console.log('a b')", 'x y', '$HOME', ''] });
    expect(splitCommand('npx server | rm -rf /')).toEqual({ ok: true, words: ['npx', 'server', '|', 'rm', '-rf', '/'] });
    expect(splitCommand('node "unclosed')).toEqual({ ok: false, error: 'unclosed "' });
  });
});
