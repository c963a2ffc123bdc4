/**
 * The Translate tool's engine in Node: Apertium (GPL, Debian packages, see .ci/apt-packages) run as a separate
 * process. Never through a shell: `spawn(binary, [flags, mode])` with an argument array; the text goes on stdin,
 * so no character of it is ever interpreted as a command. Each call has a timeout and an output cap; the whole
 * process group is killed on either (the `apertium` launcher is a bash script that starts a pipeline).
 *
 * Why stdin is a private temp file and not a pipe: the launcher opens "/dev/stdin" by name, and Node's 'pipe'
 * stdio is a socketpair, which Linux refuses to open that way (ENXIO) — Apertium then prints nothing. A regular
 * file (mode 0600, in a fresh mkdtemp folder, removed after the call) given as fd 0 works.
 *
 * That is the path for a launcher named by `binary`. The installed Apertium is not started per call: each mode's
 * pipeline is kept running (apertium-pipeline.ts; same programs, same output, ~1.3 CPU s less per call).
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TranslationEngine } from '../../core/tools/translate/translate.ts';
import { type CallLimits, collectOutput, ModePipeline } from './apertium-pipeline.ts';

export interface ApertiumOptions {
  /**
   * Another launcher: every call then goes through it (`binary -u <mode>`), and the pairs come from `binary -l`.
   * @default the installed Apertium: the pairs from its modes folder, each mode's pipeline kept running
   * (apertium-pipeline.ts)
   */
  binary?: string;
  /** Per call, milliseconds. @default 15000 */
  timeoutMs?: number;
  /** Bytes of stdout kept; beyond this the process is killed and the call fails. @default 65536 */
  maxOutputBytes?: number;
}

export interface ApertiumEngine extends TranslationEngine {
  /** ISO 639-1 code → Apertium mode used for it, e.g. es → spa-eng. */
  readonly modes: Readonly<Record<string, string>>;
  /** Why `languages` is empty (binary missing…); undefined when available. */
  readonly unavailable?: string;
}

/**
 * Apertium source-language codes (639-2/3 or 639-1) → the ISO 639-1 codes a language detector gives.
 * Serbo-Croatian (hbs) serves the detector's hr, sr and bs.
 */
const SOURCE_CODES: Readonly<Record<string, readonly string[]>> = {
  spa: ['es'], es: ['es'], cat: ['ca'], ca: ['ca'], glg: ['gl'], gl: ['gl'], eus: ['eu'], eu: ['eu'],
  isl: ['is'], is: ['is'], epo: ['eo'], eo: ['eo'], mkd: ['mk'], mk: ['mk'], hbs: ['hr', 'sr', 'bs'],
  sh: ['hr', 'sr', 'bs'], fra: ['fr'], fr: ['fr'], deu: ['de'], de: ['de'], por: ['pt'], pt: ['pt'],
  ita: ['it'], it: ['it'], ron: ['ro'], ro: ['ro'], nob: ['no'], afr: ['af'], af: ['af'],
};

/** Where the `apertium` launcher reads its modes (its own default, or $APERTIUM_DATADIR as it honours). */
const MODES_DIR = join(process.env.APERTIUM_DATADIR ?? '/usr/share/apertium', 'modes');

/**
 * Lists the installed pairs into English and returns an engine; never throws. The installed Apertium's pairs are its
 * modes folder's *.mode files — what `apertium -l` prints, without the launcher's 0.5 CPU s.
 */
export async function createApertiumEngine(options: ApertiumOptions = {}): Promise<ApertiumEngine> {
  const binary = options.binary ?? 'apertium';
  const installed = options.binary === undefined && existsSync(MODES_DIR);
  let listing: string[];
  try {
    listing = installed
      ? readdirSync(MODES_DIR).filter((name) => name.endsWith('.mode')).map((name) => name.slice(0, -'.mode'.length))
      : (await runProcess(binary, ['-l'], '', { timeoutMs: 10_000, maxOutputBytes: 1 << 20 })).split('\n');
  } catch (error) {
    return unavailableEngine(`apertium not runnable: ${(error as Error).message}`);
  }
  const modes = modesIntoEnglish(listing.map((line) => line.trim()));
  const languages = Object.keys(modes).sort();
  if (languages.length === 0) return unavailableEngine('no Apertium pair into English installed');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxOutputBytes = options.maxOutputBytes ?? 65_536;
  const pipelines = new Map<string, ModePipeline>();
  return {
    languages,
    modes,
    async translate(text, sourceLang, signal) {
      const mode = modes[sourceLang];
      if (!mode) throw new Error(`no Apertium pair ${sourceLang} → en`);
      const limits = { timeoutMs, maxOutputBytes, signal };
      if (installed) {
        let pipeline = pipelines.get(mode);
        if (!pipeline) pipelines.set(mode, (pipeline = new ModePipeline(join(MODES_DIR, `${mode}.mode`))));
        return cleanOutput(await pipeline.translate(text, limits));
      }
      // -u: no '*' marks on unknown words. Text format: Apertium escapes its own markup in the input.
      return cleanOutput(await runProcess(binary, ['-u', mode], text, limits));
    },
  };
}

/** ["spa-eng", "spa-eng_US", "eo-en", "eng-spa", …] → {es: "spa-eng", eo: "eo-en"}: plain pairs into English only. */
export function modesIntoEnglish(directions: string[]): Record<string, string> {
  const modes: Record<string, string> = {};
  for (const direction of [...directions].sort()) {
    const match = /^([a-z]{2,3})-(en|eng)$/.exec(direction); // skips variants: spa-eng_US, eo-en-bytecode
    if (!match) continue;
    for (const code of SOURCE_CODES[match[1]] ?? []) modes[code] ??= direction;
  }
  return modes;
}

/** Apertium marks generation errors with '#' and unknown analyses with '@' before a word; drop the marks. */
export function cleanOutput(text: string): string {
  return text.replace(/(^|[\s(["'¿¡])[#@](?=\p{L})/gu, '$1').replace(/\s+/g, ' ').trim();
}

function unavailableEngine(reason: string): ApertiumEngine {
  return {
    languages: [],
    modes: {},
    unavailable: reason,
    async translate() {
      throw new Error(reason);
    },
  };
}

/** Runs `binary args…` without a shell, `input` on stdin; resolves stdout (UTF-8) or rejects with a reason. */
export async function runProcess(binary: string, args: string[], input: string, limits: CallLimits): Promise<string> {
  if (limits.signal?.aborted) throw new Error('aborted');
  const dir = await mkdtemp(join(tmpdir(), 'toolformer-apertium-'));
  const path = join(dir, 'input.txt');
  try {
    const writer = await open(path, 'wx', 0o600);
    await writer.writeFile(input, 'utf8');
    await writer.close();
    const stdin = await open(path, 'r');
    try {
      return await collectOutput(binary, args, stdin.fd, limits);
    } finally {
      await stdin.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
