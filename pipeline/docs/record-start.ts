/**
 * npm run docs:start — runs `npm start` as a user does, times it, and records what it printed and wrote in
 * pipeline/docs/results/start.json (stats.json, the sampling probe, one kept call per tool); then fills the README
 * blocks made from it. Run it after a change that moves npm start's output (`npm run docs -- --check` in the tests
 * catches a README that no longer matches the record, not a record that no longer matches the code).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { writeDocs } from './docs.ts';
import type { StartRecord } from './renderers.ts';
import { readJsonl } from '../io/jsonl.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'out/start');
const RECORD = join(ROOT, 'pipeline/docs/results/start.json');

const loadAverage = loadavg()[0];
const measured = new Date().toISOString();
const started = performance.now();
const printed = await new Promise<string>((done, fail) => {
  const child = spawn('npm', ['start'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    text += chunk.toString();
  });
  child.on('error', fail);
  child.on('exit', (code) => (code === 0 ? done(text) : fail(new Error(`npm start exited with ${code}`))));
});
const seconds = (performance.now() - started) / 1000;
const annotateSeconds = Number(/documents with a kept call, ([\d.]+) s/.exec(printed)?.[1]);
if (!Number.isFinite(annotateSeconds)) throw new Error('npm start printed no summary line');

const config = JSON.parse(readFileSync(join(OUT, 'config.json'), 'utf8'));
const stats = JSON.parse(readFileSync(join(OUT, 'stats.json'), 'utf8'));
interface TrainCall { tool: string; input: string; result: string; inlinedAt: number; losses: StartRecord['kept'][number]['losses']; usefulness: number }
const docs = readJsonl<{ text: string; calls: TrainCall[] }>(join(OUT, 'train.jsonl'));

// The most useful kept call of each tool, in stats order, with 60 characters of text either side.
const kept: StartRecord['kept'] = [];
for (const tool of Object.keys(stats.tools)) {
  const best = docs
    .flatMap((d) => d.calls.filter((c) => c.tool === tool).map((c) => ({ d, c })))
    .sort((a, b) => b.c.usefulness - a.c.usefulness)[0];
  if (!best) continue;
  const { d, c } = best;
  const close = d.text.indexOf('] ', c.inlinedAt) + 1;
  kept.push({
    tool,
    call: d.text.slice(c.inlinedAt, close),
    before: d.text.slice(Math.max(0, c.inlinedAt - 60), c.inlinedAt),
    after: d.text.slice(close, close + 60),
    losses: c.losses,
    usefulness: c.usefulness,
  });
}

const record: StartRecord = {
  command: 'npm start',
  measured,
  seconds: Math.round(seconds * 10) / 10,
  loadAverage: Math.round(loadAverage * 10) / 10,
  cores: availableParallelism(),
  samplingProbe: config.config.samplingProbe ?? {},
  ...(config.config.bareProbe ? { lmContext: config.config.lmContext, bareProbe: config.config.bareProbe } : {}),
  annotateSeconds,
  stats,
  kept,
};
writeFileSync(RECORD, JSON.stringify(record, null, 2) + '\n');
console.log(`recorded ${RECORD}`);
for (const file of writeDocs(ROOT)) console.log(`updated ${file}`);
