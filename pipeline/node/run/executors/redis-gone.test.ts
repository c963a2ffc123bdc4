import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../core/default-config.ts';
import { waitUntil } from '../../testing/progress.ts';
import { skipUnlessInstalled } from '../../testing/system-requirement.ts';
import { Redis } from 'ioredis';
import { freezePlan } from '../../../core/run-plan.ts';
import { digestInputs } from '../../corpus/input-digest.ts';
import { startRun } from '../start-run.ts';
import { RUN_KEY } from './queue.ts';
import { redactUrl, redisOptions } from './redis.ts';
import { RedisServer, hasRedisServer } from './redis-server.ts';

/**
 * The queue's smaller hostile cases (issue 32 item 10): a --queue URL is never printed with its password, and a
 * coordinator whose Redis is gone for good says so in one line once it has been gone `redisGoneMs` (scaled down
 * here; 30 s by default) instead of waiting without a word.
 */
const tmp = mkdtempSync(join(tmpdir(), 'redis-gone-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a --queue URL with a password', () => {
  it('malformed: the error shows the URL with the password replaced', () => {
    expect(() => redisOptions('redis://admin:hunter2@/0')).toThrow('--queue must be redis://host:port[/db] (got "redis://admin:***@/0")');
    expect(() => redisOptions('redis://admin:hunter2@host:6379/db7')).toThrow(/got "redis:\/\/admin:\*\*\*@host:6379\/db7"/);
    expect(() => redisOptions('http://:hunter2@host')).toThrow(/got "http:\/\/:\*\*\*@host"/);
  });

  it('redactUrl keeps everything but the password', () => {
    expect(redactUrl('redis://127.0.0.1:6379/1')).toBe('redis://127.0.0.1:6379/1');
    expect(redactUrl('redis://user:p@ss:w@rd@h:1/2')).toBe('redis://user:***@h:1/2');
    expect(redactUrl('redis://onlysecret@h')).toBe('redis://***@h');
  });
});

const GROUP = 'the coordinator when Redis goes away for good (Redis)';
const noRedis = skipUnlessInstalled(GROUP, hasRedisServer() ? null : 'no redis-server on PATH');
describe.skipIf(noRedis)(GROUP, () => {
  it('one line naming the address and --resume, once Redis has been gone redisGoneMs', async () => {
    const redis = await RedisServer.start(join(tmp, 'redis'));
    const corpus = join(tmp, 'corpus.jsonl');
    writeFileSync(corpus, '{"id":"a","text":"We paid 30 dollars for 3 books."}\n{"id":"b","text":"Exports were 120 tons."}\n');
    const config = defaultConfig({ tools: ['Calculator'] });
    const plan = freezePlan({ model: 'm', modelMaxLength: 128, translationEngine: 'none', versions: {} }, { inputs: [corpus], inputsDigest: digestInputs([corpus]), config });
    // No worker: the coordinator enqueues both chunks and waits for them; then Redis dies and does not come back.
    const flags = { out: join(tmp, 'out'), queue: redis.url, chunk: 1 };
    const run = startRun(plan, 'queue', { flags, modelDigest: () => 'm', redisGoneMs: 1500 });
    run.catch(() => {});
    const client = new Redis({ port: redis.port, host: '127.0.0.1' });
    let record = '{}'; // the run's record as last read: it changes while the coordinator enqueues
    const enqueued = async () => JSON.parse((record = (await client.get(RUN_KEY)) ?? '{}')).allEnqueued === true;
    await waitUntil(enqueued, () => record, { what: 'the coordinator to enqueue every chunk' });
    client.disconnect();
    await redis.stop();
    await expect(run).rejects.toThrow(new RegExp(`^lost Redis at 127\\.0\\.0\\.1:${redis.port}: unreachable for 1\\.5 s \\([A-Z]+\\); the chunks saved in --out are kept: start Redis again and rerun with --resume$`));
  }, 120_000);
});
