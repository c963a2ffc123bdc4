import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childProgress, folderSizes, whileProgressing } from './progress.ts';

/** A node child running `script`, its exit as a promise. */
function node(script: string, cwd?: string) {
  const child = spawn(process.execPath, ['-e', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, exited };
}

describe('whileProgressing: a child-process wait bounded by progress', () => {
  const dir = mkdtempSync(join(tmpdir(), 'progress-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('waits for a child that keeps printing, however long it takes', async () => {
    const { child, exited } = node('let n = 0; const t = setInterval(() => { console.log(n++); if (n === 30) { clearInterval(t); } }, 100);');
    await expect(whileProgressing(exited, childProgress(child), { what: 'the printer', stallMs: 20_000 })).resolves.toBe(0);
  }, 120_000);

  it('counts files written in a watched folder as progress, with nothing printed', async () => {
    const script = `const fs = require('fs'); let n = 0; const t = setInterval(() => { fs.appendFileSync('out.txt', 'x'); if (++n === 20) clearInterval(t); }, 100);`;
    const { child, exited } = node(script, dir);
    await expect(whileProgressing(exited, childProgress(child, [dir]), { what: 'the writer', stallMs: 20_000 })).resolves.toBe(0);
    expect(folderSizes(dir)).toBe('out.txt:20');
  }, 120_000);

  it('counts CPU time spent as progress, with nothing printed or written', async () => {
    // 20 s of silent computing against a 5 s stall limit: only the child's CPU time moves.
    const { child, exited } = node('const end = Date.now() + 20_000; let x = 0; while (Date.now() < end) x++;');
    await expect(whileProgressing(exited, childProgress(child), { what: 'the computer', stallMs: 5_000 })).resolves.toBe(0);
  }, 120_000);

  it('looks at a watched folder as large as / in bounded time', () => {
    const start = performance.now();
    const listed = folderSizes('/').split('\n').length;
    expect(listed).toBeLessThanOrEqual(10_000);
    expect(listed).toBeGreaterThan(100); // it did walk
    expect(performance.now() - start).toBeLessThan(30_000); // the unbounded walk of / takes minutes here
  }, 120_000);

  it('fails a child that shows nothing, names it with its last words, and kills it', async () => {
    const { child, exited } = node("console.error('loading the model'); setTimeout(() => {}, 600_000);");
    let said = '';
    child.stderr.on('data', (d: Buffer) => (said += d));
    await expect(whileProgressing(exited, childProgress(child), { what: 'the sleeper', child, lastWords: () => said, stallMs: 2_000 })).rejects.toThrow(
      /^the sleeper made no progress for \d+ s; it said last: loading the model$/,
    );
    expect(await exited).toBe(null); // killed, not exited
  }, 120_000);
});
