/**
 * Fair use of the executor's slots by MCP clients (one client = one session). The tool executor runs `slots` calls
 * at a time; without this, one client's slow calls (Translate at its 30 s timeout) could take every slot and every
 * other client would wait behind them. Two rules, both work-conserving:
 *   - a client holds at most `perClient` slots (default: all but one), so a slot is always left for someone else;
 *   - when a slot frees, the clients with waiting calls take turns (round robin), not first come first served.
 */
import type { HostOutcome, ToolHost } from './server.ts';

export class FairGate {
  private running = 0;
  private readonly held = new Map<string, number>();
  /** Waiting calls by client; `turns` is the round-robin order of clients that have some. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly turns: string[] = [];

  constructor(
    readonly slots: number,
    readonly perClient = Math.max(1, slots - 1),
  ) {}

  /** Run `task` for `client` once it has a slot. */
  async run<T>(client: string, task: () => Promise<T>): Promise<T> {
    if (this.mayStart(client)) this.take(client);
    else
      await new Promise<void>((start) => {
        const queue = this.waiting.get(client) ?? [];
        if (queue.length === 0) this.turns.push(client);
        queue.push(start);
        this.waiting.set(client, queue);
      });
    try {
      return await task();
    } finally {
      this.release(client);
    }
  }

  /** Calls running now, by client (for tests and logs). */
  runningBy(client: string): number {
    return this.held.get(client) ?? 0;
  }

  private mayStart(client: string): boolean {
    return this.running < this.slots && this.runningBy(client) < this.perClient;
  }

  private take(client: string): void {
    this.running++;
    this.held.set(client, this.runningBy(client) + 1);
  }

  private release(client: string): void {
    this.running--;
    const left = this.runningBy(client) - 1;
    if (left === 0) this.held.delete(client);
    else this.held.set(client, left);
    // Hand free slots to waiting clients in turn; a client at its cap keeps its place for later.
    for (let looked = 0; looked < this.turns.length && this.running < this.slots; ) {
      const next = this.turns[0];
      if (!this.mayStart(next)) {
        this.turns.push(this.turns.shift()!);
        looked++;
        continue;
      }
      const queue = this.waiting.get(next)!;
      const start = queue.shift()!;
      this.turns.shift();
      if (queue.length > 0) this.turns.push(next);
      else this.waiting.delete(next);
      this.take(next);
      start();
      looked = 0;
    }
  }
}

/** `host` with each call of `client` passed through `gate`. */
export function fairHost(host: ToolHost, gate: FairGate, client: string): ToolHost {
  return {
    tools: host.tools,
    call: (name, args, signal): Promise<HostOutcome> => gate.run(client, () => host.call(name, args, signal)),
  };
}
