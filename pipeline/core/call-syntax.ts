import type { ToolCall } from './tools/tool.ts';

/**
 * Call text as the paper writes it, with the vocabulary unchanged: `" ["`, `"]"`, `"->"` stand for
 * <API>, </API> and →.
 *
 *   [Calculator(400 / 1400) -> 0.29]      raw argument
 *   [QA("Who wrote Hamlet?") -> Shakespeare]   quoted argument
 *   [Calendar() -> Today is Monday, January 30, 2023.]
 *   [Calculator(400 / 1400) -> ]          e(c, ε): the call with an empty result (L_b)
 *   [Calculator(400 / 1400)]              the call as the LM proposes it (no arrow yet)
 *
 * Escaping keeps any argument or result inside its brackets: `\` → `\\`, `[` → `\[`, `]` → `\]`,
 * `->` → `-\>`, `(`/`)` → `\(`/`\)` in raw arguments, `"` → `\"` in quoted ones, newline → `\n`,
 * carriage return → `\r`, other control characters → `\u{hex}`. `parseCall(formatCall(c, r))` gives back c and r.
 */
export interface FormatOptions {
  /** The tool's argument syntax: `QA("…")` is quoted, `Calculator(…)` raw. */
  quoted: boolean;
  /** Omit for a proposed call; '' for e(c, ε); the tool's output for e(c, r). */
  result?: string;
}

export interface ParsedCall extends ToolCall {
  result?: string;
}

export type ParseResult = { ok: true; call: ParsedCall } | { ok: false; error: string };

const TOOL_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}/;

/** Escape text for a position inside a call. `extra` lists further characters to escape. */
export function escapeCallText(text: string, extra = ''): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const code = ch.charCodeAt(0);
    if (ch === '\\' || ch === '[' || ch === ']' || extra.includes(ch)) out += '\\' + ch;
    else if (ch === '>' && text[i - 1] === '-') out += '\\>';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return out;
}

export function formatCall(call: ToolCall, options: FormatOptions): string {
  const arg = options.quoted ? `"${escapeCallText(call.input, '"')}"` : escapeCallText(call.input, '()');
  const head = `[${call.tool}(${arg})`;
  if (options.result === undefined) return `${head}]`;
  return options.result === '' ? `${head} -> ]` : `${head} -> ${escapeCallText(options.result)}]`;
}

/**
 * Parse `[Tool(arg)]`, `[Tool(arg) -> result]`, or the same without the outer brackets (as sampled
 * between " [" and "]"). Quoting is detected from the text: `Tool("…")` is quoted.
 */
/**
 * Whether `prefix`, the start of a sampled call text, can still parse (parseCall, also as readSample reads an unclosed
 * sample up to "->"): it must be blank or a tool name so far, or a tool name and "(". A text that has failed stays
 * failed whatever follows, so a sampler may stop it (the probe). A trailing U+FFFD (half a UTF-8 character) decides
 * nothing yet.
 */
export function canStillParse(prefix: string): boolean {
  const s = prefix.trimStart();
  if (s === '' || s.startsWith('\uFFFD')) return true;
  const name = TOOL_NAME.exec(s);
  if (!name) return false;
  const next = s[name[0].length];
  return next === undefined || next === '(' || (next === '\uFFFD' && name[0].length + 1 === s.length);
}

export function parseCall(text: string): ParseResult {
  let s = text.trim();
  const bracketed = s.startsWith('[');
  if (bracketed) {
    if (!s.endsWith(']') || s.endsWith('\\]')) return { ok: false, error: 'call is not closed with "]"' };
    s = s.slice(1, -1);
  }
  const name = TOOL_NAME.exec(s);
  if (!name) return { ok: false, error: 'no tool name' };
  let i = name[0].length;
  if (s[i] !== '(') return { ok: false, error: `expected "(" after ${name[0]}` };
  i++;
  const arg = s[i] === '"' ? readQuoted(s, i + 1) : readRaw(s, i);
  if (!arg.ok) return arg;
  i = arg.end;
  const call: ParsedCall = { tool: name[0], input: arg.value };
  const rest = s.slice(i);
  if (rest.trim() === '') return { ok: true, call };
  const arrow = /^\s*->\s?/.exec(rest);
  if (!arrow) return { ok: false, error: `unexpected text after the call: ${JSON.stringify(rest.slice(0, 20))}` };
  const result = unescape(rest.slice(arrow[0].length), 0, () => false);
  if (!result.ok) return result;
  call.result = result.value.replace(/\s+$/, '');
  return { ok: true, call };
}

type Read = { ok: true; value: string; end: number } | { ok: false; error: string };

/** Read a quoted argument starting after the opening quote; it must be followed by ")". */
function readQuoted(s: string, start: number): Read {
  const r = unescape(s, start, (ch) => ch === '"');
  if (!r.ok) return r;
  if (s[r.end] !== '"') return { ok: false, error: 'unterminated quoted argument' };
  if (s[r.end + 1] !== ')') return { ok: false, error: 'expected ")" after the quoted argument' };
  return { ok: true, value: r.value, end: r.end + 2 };
}

/** Read a raw argument up to the ")" that closes the call (unescaped parentheses nest). */
function readRaw(s: string, start: number): Read {
  let depth = 0;
  const r = unescape(s, start, (ch) => {
    if (ch === '(') depth++;
    else if (ch === ')') {
      if (depth === 0) return true;
      depth--;
    }
    return false;
  });
  if (!r.ok) return r;
  if (s[r.end] !== ')') return { ok: false, error: 'argument is not closed with ")"' };
  return { ok: true, value: r.value, end: r.end + 1 };
}

/** Undo escapeCallText from `start` until `stop(ch)` is true for an unescaped character (or the end). */
function unescape(s: string, start: number, stop: (ch: string) => boolean): Read {
  let out = '';
  let i = start;
  for (; i < s.length; i++) {
    const ch = s[i];
    if (ch !== '\\') {
      if (stop(ch)) break;
      out += ch;
      continue;
    }
    const next = s[++i];
    if (next === undefined) return { ok: false, error: 'dangling escape' };
    if (next === 'n') out += '\n';
    else if (next === 'r') out += '\r';
    else if (next === 'u') {
      const m = /^\{([0-9a-f]{1,6})\}/.exec(s.slice(i + 1));
      if (!m) return { ok: false, error: 'bad \\u escape' };
      out += String.fromCodePoint(parseInt(m[1], 16));
      i += m[0].length;
    } else out += next;
  }
  return { ok: true, value: out, end: i };
}
