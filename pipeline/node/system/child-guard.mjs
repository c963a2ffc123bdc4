/**
 * The watch every child process of toolformer keeps on its parent (issue 50): a chunk process of `toolformer worker`
 * (BullMQ's sandbox, started with `--import ./child-guard-start.mjs` so the watch is up before BullMQ's own code), a
 * `--workers` pool child (pool-child.mjs imports it first) and the CLI re-run with a long command line (long-argv.ts).
 * Plain JavaScript: it runs before tsx is registered. A process whose parent only relays signals (npx, the long
 * command-line hand-off) uses `endWithParent` instead.
 *
 * Why: a worker SIGKILLed while its chunk processes were starting left them at ~99 % CPU, ignoring SIGTERM, for an
 * hour. The chain, traced: the parent dies before the child's processor module has loaded (no 'disconnect' listener
 * yet); BullMQ's child then fails to send "init completed" (ERR_IPC_CHANNEL_CLOSED), logs it to a stderr pipe nobody
 * reads (EPIPE → an uncaught exception), and its uncaughtException handler awaits one more send to the gone parent,
 * which rejects → an unhandled rejection → an uncaught exception → the same handler, for ever, in microtasks: the event
 * loop never turns again, so no signal handler runs. Here, from the child's first line on:
 *   - the parent is watched three ways: IPC 'disconnect', its pid (polled: a parent without IPC, or one that is gone
 *     before its channel says so; Linux reparents an orphan), and writes to stdout/stderr failing (EPIPE);
 *   - a send on a closed channel, or one that fails, never reaches its caller: the process is on its way out, and no
 *     error can start the loop above;
 *   - SIGTERM and SIGINT stop the process too (BullMQ's own handler waits for the current job without a bound).
 * Stopping runs the hooks given to `onStop` (e.g. end the kept-running Apertium pipelines and reap them) for at most
 * STOP_GRACE_MS, then exits: 0 when no work was in hand, else 1 (parent gone), 143 (SIGTERM) or 130 (SIGINT). A chunk
 * abandoned this way is redone by whoever hands out chunks (the queue once its lock expires; the pool's run on --resume).
 */

/** The longest the stop hooks may take before the process exits anyway, ms. */
export const STOP_GRACE_MS = 3000;
/** How often the parent's pid is looked at, ms. */
const POLL_MS = 250;
/** Exit codes when work in hand was abandoned, by reason (128 + the signal's number for signals, as shells report them). */
export const ABANDONED_EXIT = { parent: 1, SIGTERM: 143, SIGINT: 130 };

// One state per process, whichever URL the module was loaded under (the preload and tsx's loader may differ).
const KEY = Symbol.for('toolformer.child-guard');
const state = (globalThis[KEY] ??= { installed: false, stopping: null, busy: 0, hooks: [] });

/** Marks work in hand (a chunk) until the returned function is called: stopping then exits non-zero. */
export function holdWork() {
  state.busy++;
  let released = false;
  return () => {
    if (!released) state.busy--;
    released = true;
  };
}

/** `hook` runs (awaited, within STOP_GRACE_MS) before the process exits on a stop. */
export function onStop(hook) {
  state.hooks.push(hook);
}

/** True once the process is stopping (its parent gone, or a signal). */
export const stopping = () => state.stopping !== null;

/**
 * For a process whose parent only passes signals on (the long-command-line hand-off, long-argv.ts; `npx`/`npm exec`,
 * bin.mjs): when the parent goes, this process gets the SIGTERM it would have forwarded, and its own handlers (or
 * Node's default, which ends it) decide. Nothing else changes: its stdout may be a pipe to someone else.
 */
export function endWithParent(expectedParent) {
  // A parent that says its pid covers the start-up too: one gone before this line ran is seen at once.
  const parent = expectedParent > 0 ? expectedParent : process.ppid;
  const look = () => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  };
  const timer = setInterval(look, POLL_MS);
  timer.unref();
  look();
}

/** Starts the watch (once per process). */
export function guardChild() {
  if (state.installed) return;
  state.installed = true;
  const parent = process.ppid;
  for (const stream of [process.stdout, process.stderr]) stream?.on('error', () => stop('parent'));
  if (typeof process.send === 'function') {
    const send = process.send.bind(process);
    process.send = (message, ...rest) => {
      if (state.stopping || !process.connected) return stop('parent'), false;
      const i = rest.findIndex((a) => typeof a === 'function');
      if (i < 0) rest.push((error) => error && stop('parent'));
      else {
        const callback = rest[i];
        rest[i] = (error) => (error ? stop('parent') : callback(null));
      }
      return send(message, ...rest);
    };
    process.on('disconnect', () => stop('parent'));
    if (!process.connected) stop('parent');
  }
  const timer = setInterval(() => process.ppid !== parent && stop('parent'), POLL_MS);
  timer.unref();
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Stop once: the hooks (bounded), then exit with the code for `reason` and the work in hand. */
function stop(reason) {
  state.stopping ??= (async () => {
    // Set now too: with the channel closed nothing may keep the event loop alive, and Node then exits with it.
    process.exitCode = state.busy > 0 ? ABANDONED_EXIT[reason] : 0;
    let timer;
    const grace = new Promise((resolve) => (timer = setTimeout(resolve, STOP_GRACE_MS)));
    await Promise.race([Promise.allSettled(state.hooks.map(async (hook) => hook())), grace]);
    clearTimeout(timer);
    process.exit(state.busy > 0 ? ABANDONED_EXIT[reason] : 0);
  })();
}
