import { describe, expect, it } from 'vitest';
import { cachedOrBuilt, NO_CACHE, type KeyValueCache } from './cache.ts';

/** An in-memory cache; `failRead`/`failWrite` make get/set throw as a platform's would. */
function memory(o: { failRead?: boolean; failWrite?: boolean } = {}): KeyValueCache & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    where: (ns, key) => `mem:${ns}/${key}`,
    async get(ns, key, maxBytes) {
      if (o.failRead) throw new Error(`mem:${ns}/${key} is too big`);
      const text = entries.get(`${ns}/${key}`);
      if (text !== undefined && text.length > maxBytes) throw new Error('over the cap');
      return text;
    },
    async set(ns, key, value) {
      if (o.failWrite) throw new Error('read-only');
      entries.set(`${ns}/${key}`, value);
    },
  };
}

const lines: string[] = [];
let builds = 0;
const options = (key: string) => ({
  namespace: 'n',
  key,
  maxBytes: 100,
  parse: (text: string) => (text.startsWith('v:') ? Number(text.slice(2)) : 'not a value'),
  build: async () => ++builds * 10,
  serialize: (v: number) => `v:${v}`,
  ignored: (entry: string, why: string, readFailed: boolean) => lines.push(`ignored ${entry}: ${why}${readFailed ? ' (read)' : ''}`),
  notStored: (why: string) => lines.push(`not stored: ${why}`),
});

describe('cachedOrBuilt: one read-or-build shape over the cache port', () => {
  it('builds and stores once, then reads what it stored', async () => {
    const cache = memory();
    builds = 0;
    expect(await cachedOrBuilt(cache, options('a'))).toEqual({ value: 10, cached: false });
    expect(await cachedOrBuilt(cache, options('a'))).toEqual({ value: 10, cached: true });
    expect(builds).toBe(1);
    expect(cache.entries.get('n/a')).toBe('v:10');
  });

  it('a damaged entry, a failed read and a failed write are one line each, and the value is built', async () => {
    lines.length = 0;
    const damaged = memory();
    damaged.entries.set('n/b', 'garbage');
    expect((await cachedOrBuilt(damaged, options('b'))).cached).toBe(false);
    expect(damaged.entries.get('n/b')).toMatch(/^v:/); // replaced
    expect((await cachedOrBuilt(memory({ failRead: true }), options('c'))).cached).toBe(false);
    expect((await cachedOrBuilt(memory({ failWrite: true }), options('d'))).cached).toBe(false);
    expect(lines).toEqual(['ignored mem:n/b: not a value', 'ignored mem:n/c: mem:n/c is too big (read)', 'not stored: read-only']);
  });

  it('NO_CACHE finds nothing and keeps nothing', async () => {
    builds = 0;
    await cachedOrBuilt(NO_CACHE, options('e'));
    expect((await cachedOrBuilt(NO_CACHE, options('e'))).cached).toBe(false);
    expect(builds).toBe(2);
  });
});
