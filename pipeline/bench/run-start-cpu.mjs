// Preloaded (node --import) by probe-cache.ts into an annotate process: writes to $RUN_START_CPU_FILE the process's
// CPU seconds when the run's first document is about to start (annotate-command.ts publishes 'toolformer:run-start')
// and at exit, as one JSON line each.
import { subscribe } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const file = process.env.RUN_START_CPU_FILE;
const cpuSeconds = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};
if (file) {
  subscribe('toolformer:run-start', () => appendFileSync(file, JSON.stringify({ at: 'first-document', cpuSeconds: cpuSeconds(), hrtimeUs: Number(process.hrtime.bigint() / 1000n) }) + '\n'));
  process.on('exit', () => appendFileSync(file, JSON.stringify({ at: 'exit', cpuSeconds: cpuSeconds() }) + '\n'));
}
