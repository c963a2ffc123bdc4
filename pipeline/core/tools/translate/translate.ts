import type { ToolRunner } from '../spec.ts';
import type { ToolContext, ToolResult } from '../tool.ts';

/**
 * The paper's MT tool: a non-English span → English. Both halves are passed in, so this file stays isomorphic:
 *   - a LanguageDetector (language-id.ts wraps `eld`), which decides whether the span is English;
 *   - a TranslationEngine (Node: pipeline/node/tools/apertium.ts runs Apertium as a separate process).
 * Errors are results: English input → "already English"; no engine → "translation engine not installed (…)".
 */

/** Translates into English. */
export interface TranslationEngine {
  /** Translate `text` from `sourceLang` (ISO 639-1, one of `languages`) into English. May reject. */
  translate(text: string, sourceLang: string, signal?: AbortSignal): Promise<string>;
  /** ISO 639-1 codes it translates into English; empty when the engine is not installed. */
  readonly languages: readonly string[];
}

/** Language identification. */
export interface LanguageDetector {
  /**
   * `language`: ISO 639-1 code, '' when unknown; `scores`: per-language confidence in [0, 1], best first or not.
   * May answer asynchronously (the default detector loads its database on first use).
   */
  detect(text: string): LanguageDetection | Promise<LanguageDetection>;
  /** Loads its data ahead of the first detection (see ToolRunner.load). @default nothing */
  load?(): Promise<void>;
}

export interface LanguageDetection {
  language: string;
  scores: Record<string, number>;
}

/** Characters. The paper's MT calls translate short chunks; longer text is refused, not cut. */
export const MAX_TRANSLATE_LENGTH = 500;
/** A detection whose English score is this close to the winner's is treated as "could be English". */
export const ENGLISH_MARGIN = 0.02;
/** The apt packages that install the default engine (also in .ci/apt-packages). */
export const APERTIUM_INSTALL_HINT =
  'apt-get install apertium apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eu-en apertium-isl-eng apertium-eo-en apertium-mkd-eng apertium-hbs-eng';

export interface TranslateOptions {
  detector: LanguageDetector;
  /** Absent (or with no languages) → every call is the "not installed" error. */
  engine?: TranslationEngine;
  /** Shown in the "not installed" error. */
  installHint?: string;
}

export class Translate implements ToolRunner {
  constructor(private readonly options: TranslateOptions) {}

  async load(): Promise<void> {
    await this.options.detector.load?.();
  }

  async run(input: string, context?: ToolContext): Promise<ToolResult> {
    const text = input.replace(/\s+/g, ' ').trim();
    if (text === '') return fail('empty text');
    if (text.length > MAX_TRANSLATE_LENGTH) return fail(`text longer than ${MAX_TRANSLATE_LENGTH} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(text)) return fail('control characters in text');
    if (!/\p{L}/u.test(text)) return fail('no words to translate');

    const { language, scores } = await this.options.detector.detect(text);
    if (language === '') return fail('language not identified');
    if (language === 'en') return fail('already English');
    if ((scores.en ?? 0) >= (scores[language] ?? 0) - ENGLISH_MARGIN) return fail(`could be English (${language}?)`);

    const engine = this.options.engine;
    if (!engine || engine.languages.length === 0) {
      return fail(`translation engine not installed (${this.options.installHint ?? APERTIUM_INSTALL_HINT})`);
    }
    if (!engine.languages.includes(language)) {
      return fail(`no translation from ${language} into English (installed: ${engine.languages.join(', ')})`);
    }
    try {
      const english = (await engine.translate(text, language, context?.signal)).replace(/\s+/g, ' ').trim();
      if (english === '') return fail('empty translation');
      return { ok: true, value: english };
    } catch (error) {
      return fail(`translation failed: ${(error as Error).message ?? String(error)}`);
    }
  }
}

function fail(error: string): ToolResult {
  return { ok: false, error };
}
