/**
 * Measured numbers typed by hand (issue 33 §3): a number with a unit of measurement — a time, a rate, a ratio, a
 * share, an amount of memory, a loss — written in a Markdown file outside its generated blocks (blocks.ts). Such a
 * number goes stale the day the code changes; a generated block is made again from the result file that measured it.
 *
 * Not counted, because they are not measurements:
 * - a limit or a target: the number follows ≤ ≥ < > or "under", "over", "at least", "at most", "fewer than",
 *   "more than", "less than", "up to", "target (of)" ("a line over 10 MiB is refused", "target ≤ 1.5×");
 * - a setting: the number follows a code span, as in "`--max-zstd-window` (8 MiB)" or "`maxCallMs` 60 s";
 * - the size of an input the text describes: a, an, one or the, then a size, then a word ("a 64 KB adversarial
 *   document", "the 621 MiB file").
 * Anything else that is not a measurement is allowed phrase by phrase, each with its reason (HAND_TYPED_ALLOWED).
 */
import { findBlocks } from './blocks.ts';

/** A number: digits with thousands commas, a decimal part, an exponent ("1,493.2", "8.7e-7"). */
const NUMBER = String.raw`\d[\d,]*(?:\.\d+)?(?:e-?\d+)?`;
const SIZE = String.raw`(?:KB|kB|KiB|MB|MiB|GB|GiB)\b`;
/**
 * Units of a measurement, after an optional space. "×" and "x" only glued to their number and not followed by one:
 * "1.38×" is a ratio, "16 × 128" a shape and "k 20 × m 10" a product. Words for time count too ("20 minutes").
 */
const UNIT = [
  String.raw`×(?!\s*\d)`,
  String.raw`x\b`,
  String.raw`[ \u00a0\u202f]?(?:` +
    [
      '%',
      String.raw`(?:tok|tokens|calls|documents|docs|samples|rows|GFLOP)/s\b`,
      String.raw`tok per CPU-s\b`,
      String.raw`CPU(?:[ -]s|[ -]min|[ -]hours?| seconds| minutes)\b`,
      String.raw`(?:ms|s|min|h|seconds|minutes|hours)\b`,
      SIZE,
      String.raw`nats\b`,
    ].join('|') +
    ')',
].join('|');
const MEASURED = new RegExp(String.raw`(?<![\w.])(${NUMBER})(${UNIT})`, 'g');
const LIMIT_BEFORE = /(?:[≤≥<>]|\b(?:under|over|at least|at most|fewer than|more than|less than|up to|target(?: of)?))\s*$/i;
/** After a code span, the number is the setting's value: "`--lock-ms`, default 30 s", "`maxCallMs` 60 s". */
const SETTING_BEFORE = /`[,:;]?\s*(?:\(|default\s+)?$/;
/** A confidence level, not a share: "95 % intervals", "95 % Wilson intervals". */
const LEVEL_AFTER = /^\s+(?:[A-Z]\w+\s+)?(?:intervals?|percentile|confidence)\b/;
const ARTICLE_BEFORE = /\b(?:a|an|one|the)\s+$/i;
const IS_SIZE = new RegExp(`^\\s?${SIZE}$`);

export interface HandTypedNumber {
  /** 1-based line of the file. */
  line: number;
  /** Character offset in the file. */
  at: number;
  /** The number with its unit, as written. */
  text: string;
  /** The line it is on, trimmed. */
  context: string;
}

/** The measured numbers of a Markdown text outside its generated blocks, in order. */
export function handTypedNumbers(markdown: string, file?: string): HandTypedNumber[] {
  // Blank each block's body (keeping its length and lines) so offsets and line numbers stay the file's.
  let text = markdown;
  for (const b of findBlocks(markdown, file)) text = text.slice(0, b.start) + b.body.replace(/[^\n]/g, ' ') + text.slice(b.end);
  const found: HandTypedNumber[] = [];
  for (const m of text.matchAll(MEASURED)) {
    const before = text.slice(Math.max(0, m.index! - 40), m.index!);
    const after = text.slice(m.index! + m[0].length, m.index! + m[0].length + 40);
    if (LIMIT_BEFORE.test(before) || SETTING_BEFORE.test(before) || LEVEL_AFTER.test(after)) continue;
    if (IS_SIZE.test(m[2]) && ARTICLE_BEFORE.test(before) && /^\s\w/.test(after)) continue;
    const lineStart = text.lastIndexOf('\n', m.index!) + 1;
    const lineEnd = text.indexOf('\n', m.index!);
    found.push({
      line: text.slice(0, m.index!).split('\n').length,
      at: m.index!,
      text: m[0],
      context: markdown.slice(lineStart, lineEnd < 0 ? undefined : lineEnd).trim(),
    });
  }
  return found;
}

/** A phrase of one file whose numbers are not measurements, and why. */
export interface AllowedPhrase {
  file: string;
  phrase: string;
  why: string;
  /**
   * When the numbers are constants of the code: the phrase's numbers, in order, are these constants divided by `per`
   * (`const NAME = 64 * 1024;` in `file` → 64 with per 1024). measured.test.ts reads them from the code.
   */
  constants?: { file: string; name: string; per: number }[];
}

/**
 * The numbers with a unit that are not measurements and that the rules above do not recognise. Keep it short: a
 * measured number belongs in a generated block, not here. Every entry must still match something (a check fails
 * on a stale one).
 */
const GUNZIP_CHUNK = { file: 'pipeline/node/corpus/corpus-formats/compressed.ts', name: 'GUNZIP_CHUNK', per: 1024 };
/** No progress for STALL_MS, or one test over TEST_CAP_MS, fails a test; in minutes. */
const PROGRESS_BOUNDS = ['STALL_MS', 'TEST_CAP_MS'].map((name) => ({ file: 'pipeline/node/testing/progress.ts', name, per: 60_000 }));
export const HAND_TYPED_ALLOWED: AllowedPhrase[] = [
  { file: 'pipeline/node/README.md', phrase: 'Hindi 41%, Bengali 8.1%', why: 'a quotation of the corpus text (CIA Factbook)' },
  { file: 'pipeline/node/README.md', phrase: 'declaring 1.875 GiB', why: "the test fixture's declared zstd window" },
  { file: 'pipeline/node/README.md', phrase: 'decodes 64 KiB at a time', why: "the gzip reader's chunk", constants: [GUNZIP_CHUNK] },
  { file: 'pipeline/node/export/README.md', phrase: 'gz: 64 KiB', why: "the gzip reader's chunk", constants: [GUNZIP_CHUNK] },
  { file: 'README.md', phrase: 'a test fails when nothing has moved for 3 minutes, or after 30 minutes in all', why: "the tests' progress bounds", constants: PROGRESS_BOUNDS },
  { file: 'pipeline/node/README.md', phrase: '3 and 30 minutes', why: "the tests' progress bounds", constants: PROGRESS_BOUNDS },
  { file: 'pipeline/node/README.md', phrase: 'segfaults at ~30 KB', why: "why the CLI re-runs itself over 16 KB; long-argv.test.ts sends 30 KB" },
  {
    file: 'pipeline/node/README.md',
    phrase: 'unreachable 30 s',
    why: "the coordinator's give-up limit for a gone Redis",
    constants: [{ file: 'pipeline/node/run/executors/redis.ts', name: 'REDIS_GONE_MS', per: 1000 }],
  },
  { file: 'pipeline/node/README.md', phrase: 'send 450 MB', why: "the hostile MCP server's answer size (a fixture)" },
  { file: 'pipeline/onnx-export/README.md', phrase: 'Stated tolerances: 1e-4 nats', why: "the test's tolerance, not its measurement" },
];

/**
 * READMEs whose measured numbers are not generated yet, and who is on it: the check lists their numbers without
 * failing. An entry whose file has no hand-typed number left fails the check (remove the entry).
 */
export const HAND_TYPED_PENDING: Record<string, string> = {};

/** Hand-typed measured numbers of `file` that no allowed phrase covers; and the allowed phrases that covered none. */
export function unallowedNumbers(file: string, markdown: string, allowed = HAND_TYPED_ALLOWED): { numbers: HandTypedNumber[]; staleAllowed: AllowedPhrase[] } {
  const mine = allowed.filter((a) => a.file === file);
  // A phrase matches across line breaks: any run of spaces in it matches any run of white space.
  const spans = mine.map((a) => ({
    a,
    at: [...markdown.matchAll(new RegExp(escapeRegExp(a.phrase).replace(/ +/g, '\\s+'), 'g'))].map((m) => [m.index!, m.index! + m[0].length]),
  }));
  const used = new Set<AllowedPhrase>();
  const numbers = handTypedNumbers(markdown, file).filter((n) => {
    const cover = spans.find((s) => s.at.some(([from, to]) => n.at >= from && n.at < to));
    if (cover) used.add(cover.a);
    return !cover;
  });
  return { numbers, staleAllowed: mine.filter((a) => !used.has(a)) };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
