/**
 * The Translate tool's language detector in Node: eld's 'medium' detector (core/tools/translate/language-id.ts), with
 * its n-gram database handed over as JSON instead of evaluated here. `eld/medium` is a 2 MB object literal; evaluating
 * it costs a process ~185 MiB resident (RSS 42 → 227 MiB, heap 62 MiB, in plain Node), JSON.parse of the same data
 * ~51 MiB (heap 35) — measured 2026-12-02, Node 20 — and at the 135M shape every worker holds it beside the model.
 * So a short-lived child process evaluates the module and prints the data as JSON (≈ the same CPU as importing it
 * here, ~1.3 s), and this process parses it and loads it into eld's own detector (createEld, eld's languageDetector.js
 * by file: the package exports only its entries). Same code, same data, same detections (eld-detector.test.ts).
 */
import { execFile } from 'node:child_process';
import { type Eld, eldDetector } from '../../core/tools/translate/language-id.ts';
import type { LanguageDetector } from '../../core/tools/translate/translate.ts';
interface EldModule {
  createEld(): { instance: Eld; loadData(data: unknown): string };
}

/** eld's n-gram file of the medium database and its detector module, as file URLs (beside the package's entry). */
const eldFile = (path: string) => new URL(path, import.meta.resolve('eld/medium')).href;

/** The medium database as JSON, printed by a child Node process (its memory goes when it exits). */
export function mediumNgramsJson(): Promise<string> {
  const script = `const m = await import(${JSON.stringify(eldFile('../ngrams/medium.js'))}); process.stdout.write(JSON.stringify(m.ngramsData));`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], { maxBuffer: 64 << 20, encoding: 'utf8' }, (error, stdout) =>
      error ? reject(new Error(`eld's database could not be read: ${error.message.split('\n')[0]}`)) : resolve(stdout),
    );
  });
}

let loading: Promise<Eld> | undefined;

/** eld 'medium', loaded on the first detection and once per process (as createEldDetector, less resident memory). */
export function createCompactEldDetector(): LanguageDetector {
  return eldDetector(
    () =>
      (loading ??= (async () => {
        const [json, { createEld }] = await Promise.all([mediumNgramsJson(), import(eldFile('../languageDetector.js')) as Promise<EldModule>]);
        const { instance, loadData } = createEld();
        if (!loadData(JSON.parse(json))) throw new Error("eld's database did not load");
        return instance;
      })()),
  );
}
