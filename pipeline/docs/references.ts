/**
 * What the docs quote as commands: every `toolformer <command> --flag…` and `npm run <script>` in a code span or a
 * fenced block of a Markdown file, and in the CLI's own `--help` texts — so a test can hold each one against the CLI
 * (commander's command tree, read from `--help`) and package.json (issue 33 §4: no reference to a flag that does
 * not exist).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One quoted command line: `command` '' for the bare `toolformer --version`. */
export interface CliReference {
  where: string;
  command: string;
  flags: string[];
}

/** The code in a Markdown text: each line of a fenced block, and each inline `code span` outside them. */
export function codeOf(markdown: string): string[] {
  const code: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) code.push(line);
    else for (const m of line.matchAll(/`([^`]+)`/g)) code.push(m[1]);
  }
  return code;
}

/**
 * `toolformer <command> [args] --flag …` in one line of code; the flags end where the command does (a pipe, `;`,
 * `&&`, a shell comment, or a run of spaces before a usage line's description). Not preceded by a path or name
 * character, so `models/toolformer` and `build:toolformer` are not commands, nor is an error line's `toolformer:`.
 * Quoted arguments are skipped: `--mcp "node --import tsx …"` quotes another program's flags.
 */
export function cliReferences(code: string, where: string): CliReference[] {
  const found: CliReference[] = [];
  for (const m of code.matchAll(/(?<![\w/.:@-])toolformer(?=\s|$)(?: ([a-z][a-z-]*))?([^|;&#\n]*)/g)) {
    const args = (m[2] ?? '').split(/ {2,}/)[0].replace(/"[^"]*"|'[^']*'/g, '');
    const flags = [...args.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((f) => f[0]);
    found.push({ where, command: m[1] ?? '', flags });
  }
  return found;
}

/** `npm run <script>` in one line of code. */
export function npmScripts(code: string): string[] {
  return [...code.matchAll(/\bnpm run ([\w:.-]+)/g)].map((m) => m[1]);
}

/** The Markdown files of the repository (not node_modules, out/ or dot-folders), relative to `root`. */
export function markdownFiles(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.') || e.name === 'node_modules' || (dir === root && e.name === 'out')) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(root, path);
    return e.name.endsWith('.md') ? [relative(root, path)] : [];
  });
}

/** Every reference in the Markdown files under `root`, with `file:line` as `where`. */
export function markdownReferences(root: string): { cli: CliReference[]; scripts: { where: string; script: string }[] } {
  const cli: CliReference[] = [];
  const scripts: { where: string; script: string }[] = [];
  for (const file of markdownFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const code of codeOf(text)) {
      cli.push(...cliReferences(code, file));
      for (const script of npmScripts(code)) scripts.push({ where: file, script });
    }
  }
  return { cli, scripts };
}

/** `--help` output → its command names (the "Commands:" section) and its option flags (the "Options:" section). */
export function parseHelp(help: string): { commands: string[]; flags: string[] } {
  const section = (name: string) => {
    const start = help.indexOf(`\n${name}:\n`);
    if (start < 0) return [];
    const rest = help.slice(start + name.length + 3);
    const end = rest.search(/\n\S/);
    return (end < 0 ? rest : rest.slice(0, end)).split('\n');
  };
  const commands = section('Commands').flatMap((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1] ?? []);
  const flags = section('Options').flatMap((line) => {
    const m = /^ {2}(?:-\w, )?(--[a-z][a-z0-9-]*)/.exec(line);
    return m ? [m[1]] : [];
  });
  return { commands, flags };
}

/**
 * The commands of the fenced blocks marked runnable (a fence opened with ```` ```bash runnable ````): one command a
 * line, `\` continuing it, blank lines and `#` comments skipped. Mark only fast commands: a test runs them all.
 */
export function runnableCommands(markdown: string): string[] {
  const commands: string[] = [];
  let inBlock = false;
  let pending = '';
  for (const line of markdown.split('\n')) {
    if (!inBlock) {
      inBlock = /^```bash runnable\s*$/.test(line);
      continue;
    }
    if (/^```/.test(line)) {
      inBlock = false;
      continue;
    }
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (line.endsWith('\\')) pending += `${line.slice(0, -1).trim()} `;
    else {
      commands.push(pending + line.trim());
      pending = '';
    }
  }
  return commands;
}
