import { eld } from 'eld/medium';
import type { LanguageDetector } from './translate.ts';

/**
 * Language identification with eld (Apache-2.0), its 'medium' n-gram database (60 languages, ~2 MB of JS).
 * `eld/medium` is a static ES module that carries its data — no file or network access, no `load()` — so it works
 * unchanged in Node and under Vite (the web app should load this file lazily, a dynamic import, to keep it out of
 * the first chunk).
 * Not covered by 'medium': Galician (reads as es), Esperanto, Macedonian (reads as bg).
 */
export function createEldDetector(): LanguageDetector {
  return {
    detect(text: string) {
      const result = eld.detect(text);
      return { language: result.language, scores: result.getScores() };
    },
  };
}
