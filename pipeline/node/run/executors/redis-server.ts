/**
 * A throwaway Redis for tests and the scale bench (bench/scale.ts): Debian's redis-server on 127.0.0.1, a free port, no persistence, its own directory;
 * `restart()` stops it (SIGKILL: everything in it is lost, as after a crash) and starts it again on the same port.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

export function hasRedisServer(): boolean {
  try {
    execFileSync('redis-server', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export class RedisServer {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number, private readonly dir: string) {}

  /** The server's process id (for its CPU time in /proc). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(dir: string): Promise<RedisServer> {
    if (!hasRedisServer()) throw new Error('redis-server is not installed: bash .ci/ensure-apt.sh (as root) installs it');
    mkdirSync(dir, { recursive: true });
    const server = new RedisServer(await freePort(), dir);
    await server.launch();
    return server;
  }

  private async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.dir, '--logfile', join(this.dir, 'redis.log')];
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    const deadline = Date.now() + 15_000;
    for (;;) {
      const client = new Redis({ port: this.port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      client.on('error', () => {});
      try {
        await client.connect();
        if ((await client.ping()) === 'PONG') return;
      } catch {
        if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${this.port}`);
        await new Promise((r) => setTimeout(r, 100));
      } finally {
        client.disconnect();
      }
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGKILL');
    });
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }
}
