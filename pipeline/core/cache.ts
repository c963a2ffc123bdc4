/**
 * The key-value cache port: what a run may keep between processes and runs (the probes' verdicts, the dense
 * retriever's index), with the platform passed in — Node: one file per entry under the user's cache folder
 * (node/system/file-cache.ts); a platform without one passes NO_CACHE. Values are text (JSON records whose own format says
 * what they hold: core/stages/probe-cache.ts, core/retrieval/index-record.ts).
 */

export interface KeyValueCache {
  /** The text stored under `key`, or undefined when there is none; one larger than `maxBytes` is a thrown line. */
  get(namespace: string, key: string, maxBytes: number): Promise<string | undefined>;
  /** Stores `value` whole (a reader never sees half of it); a failure is thrown as one line. */
  set(namespace: string, key: string, value: string): Promise<void>;
  /** Where the entry lives, for messages. */
  where(namespace: string, key: string): string;
}

/** No cache: nothing is found, nothing is kept. */
export const NO_CACHE: KeyValueCache = {
  get: async () => undefined,
  set: async () => {},
  where: () => 'no cache',
};

export interface CachedOrBuilt<T> {
  namespace: string;
  key: string;
  maxBytes: number;
  /** The value a stored text holds, or why it cannot be used (damaged, another key, other tools…). */
  parse(text: string): T | string;
  build(): Promise<T>;
  serialize(value: T): string;
  /**
   * A stored entry that cannot be used, said in one line by the caller (the value is built again): `why` is the read's
   * own message when reading failed (`readFailed`), else what parse() refused; `entry` is cache.where().
   */
  ignored(entry: string, why: string, readFailed: boolean): void;
  /** The built value could not be stored (one line; the run goes on). */
  notStored(why: string): void;
}

/** The value from `cache` when it holds a usable one for the key, else built and stored: one shape for every user. */
export async function cachedOrBuilt<T>(cache: KeyValueCache, o: CachedOrBuilt<T>): Promise<{ value: T; cached: boolean }> {
  const entry = cache.where(o.namespace, o.key);
  let text: string | undefined;
  try {
    text = await cache.get(o.namespace, o.key, o.maxBytes);
  } catch (error) {
    o.ignored(entry, (error as Error).message, true);
  }
  if (text !== undefined) {
    const read = o.parse(text);
    if (typeof read !== 'string') return { value: read, cached: true };
    o.ignored(entry, read, false);
  }
  const value = await o.build();
  await cache.set(o.namespace, o.key, o.serialize(value)).catch((error: Error) => o.notStored(error.message));
  return { value, cached: false };
}
