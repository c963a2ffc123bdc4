/**
 * The --queue URL: `redis://[user:password@]host:port[/db]` → ioredis options for BullMQ, and a reachability check
 * that fails in seconds with one line (not a stack trace, not an endless reconnect loop).
 */
import { Redis, type RedisOptions } from 'ioredis';

/** `url` fit to print: a password in it (`redis://user:secret@host`, parsable or not) becomes `***`. */
export function redactUrl(url: string): string {
  return url.replace(/^([^/]*\/\/[^/@]*?:)[^/]*@/, '$1***@').replace(/^([^/]*\/\/)([^/:@]+)@/, (_m, scheme: string, user: string) => `${scheme}${user === '***' ? user : '***'}@`);
}

export function redisOptions(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    u = new URL('invalid://');
  }
  const db = u.pathname.replace(/^\//, '');
  if (!['redis:', 'rediss:'].includes(u.protocol) || !u.hostname || (db !== '' && !/^\d+$/.test(db))) {
    throw new Error(`--queue must be redis://host:port[/db] (got ${JSON.stringify(redactUrl(url))}): e.g. --queue redis://127.0.0.1:6379/0`);
  }
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    db: db ? Number(db) : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    // BullMQ's blocking commands need this; reconnects go on forever (a Redis restart is waited out).
    maxRetriesPerRequest: null,
  };
}

/** Connect once, PING, disconnect; a one-line error naming the address when Redis cannot be reached. */
export async function assertQueueReachable(url: string, timeoutMs = 3000): Promise<void> {
  const options = redisOptions(url);
  const client = new Redis({ ...options, lazyConnect: true, connectTimeout: timeoutMs, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let reason = '';
  client.on('error', (e: Error & { code?: string }) => (reason ||= e.code ?? e.message));
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    const err = e as Error & { code?: string };
    throw new Error(`cannot reach Redis at ${options.host}:${options.port} (${reason || err.code || err.message}): start redis-server there, or fix --queue`);
  } finally {
    client.disconnect();
  }
}

/** What watchRedis needs of a client: its connection events. */
interface Listenable {
  on(event: string, listener: (error: Error & { code?: string }) => void): unknown;
  off(event: string, listener: (error: Error & { code?: string }) => void): unknown;
}

/** How long the coordinator waits for a Redis that went away before it gives up, ms. */
export const REDIS_GONE_MS = 30_000;

/**
 * Watch a connection the coordinator depends on: while Redis is reachable nothing happens; once it has been gone
 * `limitMs` in a row (a restart takes seconds: that is waited out), `gone` rejects with one line naming the address
 * and how to continue. `stop()` ends the watch.
 */
export function watchRedis(client: Listenable, where: string, limitMs = REDIS_GONE_MS): { gone: Promise<never>; stop: () => void } {
  let downSince: number | null = null;
  let reason = '';
  let fail: (error: Error) => void = () => {};
  const gone = new Promise<never>((_, reject) => (fail = reject));
  gone.catch(() => {}); // observed by whoever races it
  const down = () => (downSince ??= Date.now());
  const error = (e: Error & { code?: string }) => {
    reason = e.code ?? e.message;
    down();
  };
  const up = () => (downSince = null);
  const events = [['close', down], ['error', error], ['ready', up]] as const;
  for (const [event, listener] of events) client.on(event, listener);
  const timer = setInterval(() => {
    if (downSince !== null && Date.now() - downSince >= limitMs) {
      stop();
      fail(new Error(`lost Redis at ${where}: unreachable for ${limitMs / 1000} s${reason ? ` (${reason})` : ''}; the chunks saved in --out are kept: start Redis again and rerun with --resume`));
    }
  }, Math.min(1000, limitMs / 4));
  const stop = () => {
    clearInterval(timer);
    for (const [event, listener] of events) client.off(event, listener);
  };
  return { gone, stop };
}
