/**
 * One Apertium mode kept running, as Apertium-APy serves it: the mode's own pipeline, null-flushed, started once per
 * process and fed one text at a time. Why: through the `apertium` launcher a call starts ~14 processes that each
 * load their dictionaries again — 1.3 CPU s for a three-word Spanish name (10 calls were 13 of `npm start`'s ~64
 * CPU s, measured 2026-12-02). Kept running, a call costs the two format processes (a few ms) and the translation.
 *
 * The same programs and data as the launcher's `apertium -u <mode>` for the txt format:
 *   apertium-destxt  →  the mode's pipeline (`apertium-wblank-mode -z <mode>.mode`, run by bash with $1 = -n, the
 *   launcher's OPTION under -u, and $2 = '', its tagger option)  →  apertium-retxt
 * destxt and retxt have no null-flush mode, so they run per call; the pipeline between them gets each call's
 * formatted text followed by a NUL and answers up to the NUL it passes on. Calls on one mode are serialized. The
 * text only ever travels on stdin: bash runs the mode file's script (Debian's data), never the text.
 * A timeout, an abort, an oversized answer or a pipeline that died kills the pipeline's process group; the next call
 * starts a fresh one. The processes are unreferenced: they never keep Node alive, and end with its stdin (EOF).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface CallLimits {
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/** The launcher's environment: Apertium's binaries first on PATH, a UTF-8 LC_CTYPE (it takes the first UTF-8 locale). */
function apertiumEnv(): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${process.env.APERTIUM_PATH ?? '/usr/bin'}:${process.env.PATH ?? ''}`, LC_CTYPE: 'C.UTF-8' };
}

/** The pipelines running in this process (stopRunningPipelines ends them). */
const RUNNING = new Set<ChildProcess>();

/**
 * Ends every kept-running pipeline of this process (stdin closed, then SIGKILL if one has not exited within `graceMs`)
 * and waits for them, so that they are reaped here: a process that exits first leaves them to init, and their CPU
 * to no one's account (`/usr/bin/time` on a run would miss it). A worker calls it before it exits.
 */
export async function stopRunningPipelines(graceMs = 2000): Promise<void> {
  await Promise.all(
    [...RUNNING].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => killGroup(child.pid), graceMs);
          child.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          child.stdin!.end();
        }),
    ),
  );
}

export class ModePipeline {
  private running: { child: ChildProcess; stderr: string[] } | undefined;
  private script: Promise<string> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  /** `modeFile`: the mode's .mode file (e.g. /usr/share/apertium/modes/spa-eng.mode). */
  constructor(private readonly modeFile: string) {}

  /** `text` → English, as `apertium -u <mode>` gives it (stdout, before cleanOutput). */
  translate(text: string, limits: CallLimits): Promise<string> {
    const call = this.queue.then(() => this.translateNow(text, limits));
    this.queue = call.catch(() => undefined);
    return call;
  }

  /** Kills the running pipeline, if any (the next call starts another). */
  stop(): void {
    if (this.running) killGroup(this.running.child.pid);
    this.running = undefined;
  }

  private async translateNow(text: string, limits: CallLimits): Promise<string> {
    if (limits.signal?.aborted) throw new Error('aborted');
    const formatted = await collectOutput('apertium-destxt', [], text, limits, apertiumEnv());
    const translated = await this.roundTrip(formatted, limits);
    return collectOutput('apertium-retxt', [], translated, limits, apertiumEnv());
  }

  private async start(limits: CallLimits): Promise<{ child: ChildProcess; stderr: string[] }> {
    this.script ??= collectOutput('apertium-wblank-mode', ['-z', this.modeFile], '', limits, apertiumEnv());
    const script = await this.script.catch((error: Error) => {
      this.script = undefined;
      throw error;
    });
    const child = spawn('bash', ['-c', script, 'apertium', '-n', ''], { shell: false, detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: apertiumEnv() });
    const stderr: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => {
      if (stderr.join('').length < 2000) stderr.push(chunk.toString('utf8'));
    });
    child.stdin!.on('error', () => {}); // EPIPE when the pipeline died: reported by 'close'
    RUNNING.add(child);
    child.once('close', () => RUNNING.delete(child));
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    return { child, stderr };
  }

  private async roundTrip(input: string, limits: CallLimits): Promise<string> {
    const running = (this.running ??= await this.start(limits));
    const { child, stderr } = running;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      const finish = (error: Error | null, value?: string) => {
        clearTimeout(timer);
        limits.signal?.removeEventListener('abort', onAbort);
        child.stdout!.off('data', onData);
        child.off('close', onClose);
        if (error) {
          if (this.running === running) this.stop();
          reject(error);
        } else resolve(value as string);
      };
      const onData = (chunk: Buffer) => {
        const nul = chunk.indexOf(0);
        const part = nul === -1 ? chunk : chunk.subarray(0, nul);
        bytes += part.length;
        if (bytes > limits.maxOutputBytes) return finish(new Error(`output larger than ${limits.maxOutputBytes} bytes`));
        chunks.push(part);
        if (nul === -1) return;
        if (nul < chunk.length - 1) this.stop(); // more than one answer: out of step, start afresh next time
        finish(null, Buffer.concat(chunks).toString('utf8'));
      };
      const onClose = (code: number | null) => {
        if (this.running === running) this.running = undefined;
        const said = stderr.join('').trim().slice(0, 200);
        finish(new Error(`apertium pipeline exited (code ${code})${said ? `: ${said}` : ''}`));
      };
      const onAbort = () => finish(new Error('aborted'));
      const timer = setTimeout(() => finish(new Error(`timed out after ${limits.timeoutMs} ms`)), limits.timeoutMs);
      limits.signal?.addEventListener('abort', onAbort, { once: true });
      child.stdout!.on('data', onData);
      child.once('close', onClose);
      (child.stdin as Writable).write(`${input}\0`);
    });
  }
}

/**
 * Runs `binary args…` (no shell, its own process group) and resolves its stdout (UTF-8), within the limits: `stdin` is
 * a text written to a pipe, or a file descriptor the child reads itself. A timeout, an abort, an oversized answer or
 * a non-zero exit rejects with a reason and kills the group.
 */
export function collectOutput(binary: string, args: string[], stdin: string | number, limits: CallLimits, env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const piped = typeof stdin === 'string';
    const child = spawn(binary, args, { shell: false, detached: true, stdio: [piped ? 'pipe' : stdin, 'pipe', 'pipe'], ...(env && { env }) });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderr = '';
    let settled = false;
    const finish = (error: Error | null, value?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      if (error) killGroup(child.pid);
      if (error) reject(error);
      else resolve(value as string);
    };
    const onAbort = () => finish(new Error('aborted'));
    const timer = setTimeout(() => finish(new Error(`timed out after ${limits.timeoutMs} ms`)), limits.timeoutMs);
    limits.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => finish(error)); // ENOENT when the binary is missing
    // stdout/stderr are 'pipe' above, so never null.
    (child.stdout as Readable).on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxOutputBytes) return finish(new Error(`output larger than ${limits.maxOutputBytes} bytes`));
      chunks.push(chunk);
    });
    (child.stderr as Readable).on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.on('close', (code) => {
      if (code === 0) finish(null, Buffer.concat(chunks).toString('utf8'));
      else finish(new Error(`${binary} exit code ${code}${stderr ? `: ${stderr.trim().slice(0, 200)}` : ''}`));
    });
    if (piped) {
      child.stdin!.on('error', () => {}); // EPIPE from a process that exited early: reported by 'close'
      child.stdin!.end(stdin);
    }
  });
}

/** SIGKILLs a process group started with `detached: true` (a launcher or bash and the pipeline it started). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
