/**
 * A training run's log: `<work>/log.jsonl`, one JSON object per line, `{ time, event, … }`, appended across the
 * processes of a run (a resumed run continues the same file). Events: start, resume, train (every 10 steps: mean
 * loss of those steps, lr, gradient norm, tokens/s), eval (the probes), final (the run record), export.
 */
import { appendFileSync } from 'node:fs';
import { readJsonl } from '../io/jsonl.ts';

export type LogRecord = { event: string } & Record<string, unknown>;

export class RunLog {
  /**
   * @param path the log.jsonl file
   * @param echo called with each line as written (the entry point decides what to print, and where)
   */
  constructor(readonly path: string, private readonly echo: (line: string, record: LogRecord) => void = () => {}) {}

  write(record: LogRecord): void {
    const line = JSON.stringify({ time: new Date().toISOString(), ...record });
    this.echo(line, record);
    appendFileSync(this.path, line + '\n');
  }
}

/** Every record of a log.jsonl, in order. */
export function readRunLog(path: string): LogRecord[] {
  return readJsonl<LogRecord>(path);
}
