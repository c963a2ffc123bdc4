import type { LanguageDetector } from './translate.ts';

export type Eld = typeof import('eld/medium').eld;
let loading: Promise<Eld> | undefined;

/**
 * Language identification with eld (Apache-2.0), its 'medium' n-gram database (60 languages, ~2 MB of JS).
 * `eld/medium` is a static ES module that carries its data — no file or network access, no `load()` — so it works
 * unchanged in Node and under Vite. It is imported on the first detection and once per process (a dynamic import:
 * ~1.2 CPU s that commands which never translate do not pay, and a chunk of its own in the web app).
 * Not covered by 'medium': Galician (reads as es), Esperanto, Macedonian (reads as bg).
 */
export function createEldDetector(): LanguageDetector {
  return eldDetector(() => (loading ??= import('eld/medium').then((m) => m.eld)));
}

/** A LanguageDetector over an eld instance that `eld` loads (once: it caches its promise). */
export function eldDetector(eld: () => Promise<Eld>): LanguageDetector {
  return {
    async load() {
      await eld();
    },
    async detect(text: string) {
      const result = (await eld()).detect(text);
      return { language: result.language, scores: result.getScores() };
    },
  };
}
