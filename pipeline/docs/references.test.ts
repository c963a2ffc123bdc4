import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DTYPE_FILES, DTYPES } from '../core/lm/dtypes.ts';
import { type CliReference, cliReferences, codeOf, markdownReferences, npmScripts, parseHelp } from './references.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'pipeline/node/bin.mjs');
const run = promisify(execFile);
const help = async (args: string[]) => (await run(process.execPath, [BIN, ...args, '--help'], { cwd: ROOT })).stdout;

/** The CLI as commander knows it: command → its flags ('' → the program's own), and each command's help text. */
const tree = new Map<string, { flags: Set<string>; help: string }>();

/** A reference the CLI cannot take: a command it does not have, or a flag the command does not have. */
function missing(ref: CliReference): string | null {
  const entry = tree.get(ref.command);
  if (!entry) return `${ref.where}: toolformer ${ref.command}: no such command`;
  const unknown = ref.flags.filter((f) => !entry.flags.has(f) && f !== '--help');
  return unknown.length ? `${ref.where}: toolformer ${ref.command} ${unknown.join(' ')}: no such flag` : null;
}

describe('every quoted command exists (READMEs and --help against the CLI)', () => {
  beforeAll(async () => {
    const top = await help([]);
    const { commands, flags } = parseHelp(top);
    tree.set('', { flags: new Set(flags), help: top });
    // Two at a time: each is a node process.
    for (let i = 0; i < commands.length; i += 2) {
      const pair = commands.slice(i, i + 2).filter((c) => c !== 'help');
      const texts = await Promise.all(pair.map((c) => help([c])));
      pair.forEach((c, j) => tree.set(c, { flags: new Set(parseHelp(texts[j]).flags), help: texts[j] }));
    }
  }, 600_000);

  it('reads the command tree', () => {
    expect([...tree.keys()]).toEqual(expect.arrayContaining(['', 'annotate', 'export', 'merge', 'tools', 'example', 'score', 'generate', 'mcp']));
    expect(tree.get('')!.flags).toEqual(new Set(['--version', '--help']));
    expect(tree.get('export')!.flags).toContain('--format');
  });

  it('a planted wrong reference is caught (the check can fail)', () => {
    const refs = [
      ...cliReferences('toolformer merge out/run --out x', 'planted'),
      ...cliReferences('npx toolformer annotat corpus.jsonl', 'planted'),
      ...cliReferences('toolformer export out/start --format chat | jq .', 'planted'),
    ];
    expect(refs.map(missing)).toEqual([
      'planted: toolformer merge --out: no such flag',
      'planted: toolformer annotat: no such command',
      null,
    ]);
  });

  it('every `toolformer …` quoted in a README exists, with each of its flags', () => {
    const { cli } = markdownReferences(ROOT);
    expect(cli.length).toBeGreaterThan(30);
    expect(cli.map(missing).filter((m) => m !== null)).toEqual([]);
  });

  it('every `toolformer …` quoted in a --help text exists, with each of its flags', () => {
    const refs = [...tree.values()].flatMap(({ help }) => codeOf(help.replace(/\s+/g, ' ')).flatMap((code) => cliReferences(code, '--help')));
    expect(refs.length).toBeGreaterThan(3);
    expect(refs.map(missing).filter((m) => m !== null)).toEqual([]);
  });

  it('every `npm run <script>` quoted in a README is a script of package.json', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')).scripts as object);
    const { scripts: quoted } = markdownReferences(ROOT);
    expect(quoted.length).toBeGreaterThan(5);
    expect(quoted.filter((q) => !scripts.includes(q.script)).map((q) => `${q.where}: npm run ${q.script}`)).toEqual([]);
    expect(npmScripts('npm run docs -- --check && npm run web')).toEqual(['docs', 'web']);
  });

  it("pipeline/node/README.md lists every --dtype the CLI takes, with its file", () => {
    const readme = readFileSync(resolve(ROOT, 'pipeline/node/README.md'), 'utf8').replace(/\s+/g, ' ');
    expect(tree.get('annotate')!.help.replace(/\s+/g, ' ')).toContain(DTYPES.map((d) => `${d} ${DTYPE_FILES[d]}`).join(', '));
    expect(DTYPES.filter((d) => !readme.includes(`${d} ${DTYPE_FILES[d]}`))).toEqual([]);
    expect(DTYPES.length).toBe(8);
  });
});
