import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../testing/cli-child.ts';

/**
 * Commands that need no model start cheaply (issue 33 §2): they import no model runtime, no mathjs and no language
 * detector — those load on first use (calculate.ts, language-id.ts, the command modules). Checked by behaviour, not
 * by the clock: the child runs with an import hook that fails any import of those engines.
 */
const HOOK = resolve(ROOT, 'pipeline/node/testing/forbid-engines.mjs');
/** Refuses tsx: a command that runs under it was answered in plain JavaScript (start-cache.mjs). */
const NO_LOADER = resolve(ROOT, 'pipeline/node/testing/forbid-loader.mjs');
const BIN = resolve(ROOT, 'pipeline/node/bin.mjs');

function guarded(args: string[], cwd: string, hook = HOOK, env = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', hook, BIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

describe('start-up: --version and a printed tools list need no TypeScript loader', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'start-up-'));
  const env = { ...process.env, TOOLFORMER_CACHE: mkdtempSync(join(tmpdir(), 'start-cache-')) };
  const stored = () => join(env.TOOLFORMER_CACHE, 'start', readdirSync(join(env.TOOLFORMER_CACHE, 'start'))[0]);

  it('--version runs without it', async () => {
    const version = await guarded(['--version'], cwd, NO_LOADER, env);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).version);
  });

  it('tools: the TypeScript path first, then the same bytes without it; a stale key goes back to TypeScript', async () => {
    // Nothing stored yet: the command needs tsx, which the hook refuses (the check can fail).
    const cold = await guarded(['tools', '--format', 'mcp'], cwd, NO_LOADER, env);
    expect(cold.code).toBe(1);
    expect(cold.stderr).toContain('forbidden: tsx');

    const typed = await guarded(['tools', '--format', 'mcp'], cwd, HOOK, env);
    expect(typed).toMatchObject({ code: 0, stderr: '' });
    expect((JSON.parse(typed.stdout) as { name: string }[]).map((t) => t.name)).toEqual(['Calculator', 'QA', 'Calendar', 'Translate']);

    const warm = await guarded(['tools', '--format=mcp'], cwd, NO_LOADER, env);
    expect(warm).toMatchObject({ code: 0, stderr: '' });
    expect(warm.stdout).toBe(typed.stdout);
    // Another format is another answer: not stored yet.
    expect((await guarded(['tools', '--format', 'openai'], cwd, NO_LOADER, env)).code).toBe(1);

    // What a changed source does: the stored key no longer matches, so the stored output is not printed.
    const entry = JSON.parse(readFileSync(stored(), 'utf8')) as { key: string; output: string };
    writeFileSync(stored(), JSON.stringify({ ...entry, key: 'a source changed since' }));
    expect((await guarded(['tools', '--format', 'mcp'], cwd, NO_LOADER, env)).code).toBe(1);
  });
});

describe('start-up: npx toolformer finds a linked bin, not the package own one', () => {
  const manifest = (path: string) => JSON.parse(readFileSync(resolve(ROOT, path), 'utf8')) as { bin?: Record<string, string>; workspaces?: string[] };

  it('toolformer is the npx-bin workspace bin, which npm links into node_modules/.bin', () => {
    // A root bin named toolformer sends npx down libnpmexec's self-install path (the whole tree read twice per call).
    expect(Object.keys(manifest('package.json').bin ?? {})).not.toContain('toolformer');
    expect(manifest('package.json').workspaces).toContain('pipeline/node/npx-bin');
    const bin = manifest('pipeline/node/npx-bin/package.json').bin?.toolformer;
    expect(readFileSync(resolve(ROOT, 'pipeline/node/npx-bin', bin!), 'utf8')).toContain("import '../bin.mjs'");
  });
});
