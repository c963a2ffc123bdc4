import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles, runnableCommands } from './references.ts';

const ROOT = resolve(import.meta.dirname, '../..');

/** `bash -c command` in the repository root, as a reader would type it there. */
function bash(command: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('bash', ['-c', `set -o pipefail; ${command}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  return new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (code) => done({ code, stderr }));
  });
}

describe('commands the READMEs mark runnable run as typed', () => {
  const marked = markdownFiles(ROOT).flatMap((file) => runnableCommands(readFileSync(resolve(ROOT, file), 'utf8')).map((command) => ({ file, command })));

  it('reads the marker', () => {
    expect(runnableCommands('a\n```bash runnable\n# note\nnpx x \\\n  --y\n\nls\n```\n```bash\nnot this\n```\n')).toEqual(['npx x --y', 'ls']);
    expect(marked.length).toBeGreaterThan(0);
  });

  it.each(marked)('$file: $command', async ({ command }) => {
    const { code, stderr } = await bash(command);
    expect(stderr.trim().split('\n').filter((l) => /error|not found|unknown/i.test(l))).toEqual([]);
    expect(code).toBe(0);
  }, 300_000);
});
