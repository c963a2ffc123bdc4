import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './testing/cli-child.ts';

/**
 * Commands that need no model start cheaply (issue 33 §2): they import no model runtime, no mathjs and no language
 * detector — those load on first use (calculate.ts, language-id.ts, the command modules). Checked by behaviour, not
 * by the clock: the child runs with an import hook that fails any import of those engines.
 */
const HOOK = resolve(ROOT, 'pipeline/node/testing/forbid-engines.mjs');
const BIN = resolve(ROOT, 'pipeline/node/bin.mjs');

function guarded(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', HOOK, BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('start-up: commands that need no model load no engine', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'start-up-'));

  it('the hook itself refuses an engine (the check can fail)', async () => {
    const { code, stderr } = await guarded(['score', 'text', '--call', 'Calculator(1+1)', '--at', '0'], cwd);
    expect(code).toBe(1);
    expect(stderr).toMatch(/forbidden at start-up: (onnxruntime-node|@huggingface\/transformers|mathjs|eld)/);
  });

  it('--help, --version, tools, example and export run without one', async () => {
    const help = await guarded(['--help'], cwd);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(/^Usage: toolformer/);

    const version = await guarded(['--version'], cwd);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);

    const tools = await guarded(['tools', '--format', 'openai'], cwd);
    expect(tools).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(tools.stdout) as unknown[]).length).toBe(4);

    const example = await guarded(['example'], cwd);
    expect(example).toMatchObject({ code: 0, stderr: '' });
    expect(example.stdout).toContain('KEPT');

    // The export command's whole module graph loads before it looks at the run directory.
    const exported = await guarded(['export', join(cwd, 'no-run'), '--format', 'text'], cwd);
    expect(exported.code).toBe(1);
    expect(exported.stderr).not.toContain('forbidden');
    expect(exported.stderr).toMatch(/^toolformer: /);
  });
});
