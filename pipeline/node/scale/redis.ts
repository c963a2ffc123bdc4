/**
 * The --queue URL: `redis://[user:password@]host:port[/db]` → ioredis options for BullMQ, and a reachability check
 * that fails in seconds with one line (not a stack trace, not an endless reconnect loop).
 */
import { Redis, type RedisOptions } from 'ioredis';

export function redisOptions(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    u = new URL('invalid://');
  }
  const db = u.pathname.replace(/^\//, '');
  if (!['redis:', 'rediss:'].includes(u.protocol) || !u.hostname || (db !== '' && !/^\d+$/.test(db))) {
    throw new Error(`--queue must be redis://host:port[/db] (got ${JSON.stringify(url)}): e.g. --queue redis://127.0.0.1:6379/0`);
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
