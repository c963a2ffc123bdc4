// One worker thread of isolated-calls.ts: loads `workerData.module` (TypeScript through tsx's loader, which a worker
// does not inherit from its parent on Node 20), runs `workerData.warm` once so the module's first-use cost (mathjs
// `create(all)`) is paid before any deadline starts, says `ready`, then answers `{id, args}` with `{id, result}`:
// the result of `module[workerData.exportName](...args)`, or `{ok: false, error}` when it throws.
import { parentPort, workerData } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register();
const run = (await import(workerData.module))[workerData.exportName];
const call = (args) => {
  try {
    return run(...args);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
};
if (workerData.warm) call(workerData.warm);
parentPort.on('message', ({ id, args }) => parentPort.postMessage({ id, result: call(args) }));
parentPort.postMessage('ready');
