// Preloaded (node --import) by old-vs-new.ts into an annotate process; its forked workers inherit it (fork passes
// execArgv). Works on any checkout of this repository from f298c51 on: it patches only long-lived names —
// OrtCausalLM.prototype.score / .sample (the LM), ToolRegistry.prototype.get (the tools' run) and
// RunFiles.prototype (the run's files) — of the checkout named by $STAGE_PROFILE_ROOT, and appends one JSON line per
// process to $STAGE_PROFILE_FILE at exit:
//   { pid, stages: { <stage>: { cpuSeconds, wallSeconds, calls, peakRssMiB } }, cpuSeconds, peakRssMiB,
//     cpuSecondsAtFirstLm }
// Stages: probe, p_i, propose, score, control (LM calls, told apart by their call stack: the file or function that
// asked), execute (a tool's run), commit (RunFiles), outside (everything else: start-up, tokenizing, planning).
// CPU is the process's (ONNX Runtime's threads included), split evenly between the stages active at once (the
// tools of a document overlap); wall is the time a stage was active at all; peakRssMiB the largest VmRSS sampled
// every 50 ms while the stage was active (VmHWM for the process).
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const root = process.env.STAGE_PROFILE_ROOT ?? process.cwd();
const file = process.env.STAGE_PROFILE_FILE;
const load = (path) => import(pathToFileURL(join(root, path)).href);

const cpuNow = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};
const statusKiB = (field) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);

const stages = {};
const active = new Map(); // stage → how many calls of it are running
let last = { cpu: cpuNow(), wall: performance.now() };
let cpuAtFirstLm = null;
const entry = (stage) => (stages[stage] ??= { cpuSeconds: 0, wallSeconds: 0, calls: 0, peakRssMiB: 0 });

/** Charge the CPU and wall since the last event to the stages active until now. */
function account() {
  const now = { cpu: cpuNow(), wall: performance.now() };
  const running = [...active.keys()];
  const shares = running.length ? running : ['outside'];
  const runs = running.length ? running.reduce((s, k) => s + active.get(k), 0) : 1;
  for (const stage of shares) {
    const e = entry(stage);
    e.cpuSeconds += ((now.cpu - last.cpu) * (running.length ? active.get(stage) : 1)) / runs;
    e.wallSeconds += (now.wall - last.wall) / 1000;
  }
  last = now;
}

function sampleRss() {
  const rss = statusKiB('VmRSS') / 1024;
  for (const stage of active.size ? active.keys() : ['outside']) entry(stage).peakRssMiB = Math.max(entry(stage).peakRssMiB, rss);
}
setInterval(sampleRss, 50).unref();

/** Run `fn` as one call of `stage`. */
function timed(stage, fn) {
  account();
  sampleRss();
  active.set(stage, (active.get(stage) ?? 0) + 1);
  entry(stage).calls++;
  const done = () => {
    account();
    sampleRss();
    const n = active.get(stage) - 1;
    if (n === 0) active.delete(stage);
    else active.set(stage, n);
  };
  let result;
  try {
    result = fn();
  } catch (error) {
    done();
    throw error;
  }
  if (result && typeof result.then === 'function') return result.finally(done);
  done();
  return result;
}

Error.stackTraceLimit = Math.max(Error.stackTraceLimit, 60);
/** Which stage asked the LM, from the call stack (sync frames, then V8's async frames). */
function lmStage(method) {
  const stack = new Error().stack ?? '';
  if (/run-probes|sampling-probe|bareTextProbe|samplingProbe|runProbes/.test(stack)) return 'probe';
  if (/measureControl|distractor\.ts/.test(stack)) return 'control';
  if (/sampling\/positions\.ts|positionScores/.test(stack)) return 'p_i';
  if (method === 'sample' || /sample-calls\.ts/.test(stack)) return 'propose';
  if (/scoring\/(scoring|inline-scoring)\.ts/.test(stack)) return 'score';
  return 'lm-other';
}

const { OrtCausalLM } = await load('pipeline/core/lm/ort-lm.ts');
for (const method of ['score', 'sample']) {
  const original = OrtCausalLM.prototype[method];
  OrtCausalLM.prototype[method] = function (...args) {
    cpuAtFirstLm ??= cpuNow();
    return timed(lmStage(method), () => original.apply(this, args));
  };
}

const { ToolRegistry } = await load('pipeline/core/tools/registry.ts');
const wrapped = new WeakSet();
const get = ToolRegistry.prototype.get;
ToolRegistry.prototype.get = function (name) {
  const tool = get.call(this, name);
  if (tool && !wrapped.has(tool)) {
    const run = tool.run;
    tool.run = (...args) => timed('execute', () => run.apply(tool, args));
    wrapped.add(tool);
  }
  return tool;
};

const { RunFiles } = await load('pipeline/node/run/run-files.ts');
for (const name of Object.getOwnPropertyNames(RunFiles.prototype)) {
  const original = RunFiles.prototype[name];
  if (name === 'constructor' || typeof original !== 'function') continue;
  RunFiles.prototype[name] = function (...args) {
    return timed('commit', () => original.apply(this, args));
  };
}

if (file) {
  process.on('exit', () => {
    account();
    const round = (x) => Math.round(x * 1000) / 1000;
    const out = Object.fromEntries(Object.entries(stages).map(([k, v]) => [k, { cpuSeconds: round(v.cpuSeconds), wallSeconds: round(v.wallSeconds), calls: v.calls, peakRssMiB: round(v.peakRssMiB) }]));
    appendFileSync(file, JSON.stringify({ pid: process.pid, worker: process.send !== undefined, stages: out, cpuSeconds: round(cpuNow()), cpuSecondsAtFirstLm: cpuAtFirstLm === null ? null : round(cpuAtFirstLm), peakRssMiB: round(statusKiB('VmHWM') / 1024) }) + '\n');
  });
}
