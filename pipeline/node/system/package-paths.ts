/**
 * The bundled model and corpus, found from the package, not from the working directory, so
 * `npx --prefix <clone> toolformer annotate` works from anywhere.
 */
import { resolve } from 'node:path';

export const PACKAGE_ROOT = resolve(import.meta.dirname, '../../..');
export const DEFAULT_MODEL = resolve(PACKAGE_ROOT, 'models/default');
/**
 * What `generate` runs by default: the bundled model finetuned on calls (models/toolformer), the one that writes
 * calls — models/default was never shown a call and answers alone (the web app's Inference panel defaults to it too).
 */
export const DEFAULT_GENERATE_MODEL = resolve(PACKAGE_ROOT, 'models/toolformer');
/** What `annotate` reads when given no inputs: the whole bundled corpus. */
export const DEFAULT_INPUTS = ['corpus/sotu.jsonl', 'corpus/factbook.jsonl'].map((p) => resolve(PACKAGE_ROOT, p));
