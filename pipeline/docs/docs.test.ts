import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyStats } from '../core/stats.ts';
import { CLOSE, fillBlocks, findBlocks, openMarker } from './blocks.ts';
import { generateDocs } from './docs.ts';
import { renderBlock, type FirstVisitBuildRecord, type FirstVisitRecord, type ReplicasRecord, type StartRecord, type TestRunRecord, type TrainRecordProbes } from './renderers.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const tmp = mkdtempSync(join(tmpdir(), 'docs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Recorded measurements as their committed files hold them, for the views that render them. */
const REPLICAS: ReplicasRecord = {
  measured: '2026-12-02T09:15:00.000Z', command: 'npm run docs:replicas', text: 'x', transformersJs: '4.3.2',
  dtypes: [
    { dtype: 'fp32', file: 'model.onnx', largest: 1.04e-6, tokens: 19, tolerance: 1e-4 },
    { dtype: 'fp16', file: 'model_fp16.onnx', largest: 4.1e-3, tokens: 19, tolerance: 1e-2 },
  ],
};
const FIRST_VISIT_BUILD: FirstVisitBuildRecord = {
  measured: '2026-12-05T13:40:00.000Z', command: 'npm run docs:web (web/e2e/explorer-first.test.ts)', server: 'the production build',
  cores: 2, loadAverage: 3.14, browser: 'Chromium 156', backend: 'wasm', firstVisitBytes: 10_194_093, firstResultSeconds: 20.44,
  funnel: '80 proposed → 50 executed → 50 scored → 2 kept', executed: 50, kept: 2,
  largest: [{ file: 'model.onnx', compressed: 6_884_000, raw: 7_508_739 }], webgpuRuntime: { file: 'ort-wasm-simd-threaded.jsep.wasm', compressed: 6_100_000, raw: 28_352_885 },
};
const FIRST_VISIT: FirstVisitRecord = {
  measured: '2026-12-01T22:41:43.111Z', command: 'npm run docs:web (web/e2e/first-visit.test.ts)', server: 'vite dev server',
  cores: 2, loadAverage: 7.3, browser: 'Chromium 156', backend: 'wasm', reloads: 0, modelReadySeconds: 22.4,
  firstResultSeconds: 45.7, candidates: 80, tokens: 48, scoreSeconds: 23.16, scored: 50, keptAtTauF05: 2,
};

describe('generated README blocks', () => {
  it('every block in the repository equals what npm run docs makes from its committed source', () => {
    const docs = generateDocs(ROOT);
    expect(docs.map((d) => d.file)).toContain('README.md');
    expect(docs.filter((d) => d.generated !== d.current).map((d) => `${d.file} (from ${d.sources.join(', ')})`)).toEqual([]);
  });

  it('a block edited by hand, or whose source changed, is stale; npm run docs makes it fresh', () => {
    mkdirSync(join(tmp, 'results'), { recursive: true });
    writeFileSync(join(tmp, 'results/bench.md'), '# bench\n\n| a | b |\n|---|---|\n| 1 | 2 |\n');
    const readme = `# Title\n\ntext\n\n${openMarker('results/bench.md')}\n| a | b |\n|---|---|\n| 1 | 3 |\n${CLOSE}\n\nmore\n`;
    writeFileSync(join(tmp, 'README.md'), readme);
    const [doc] = generateDocs(tmp);
    expect(doc.generated).not.toBe(doc.current);
    expect(doc.generated).toBe(`# Title\n\ntext\n\n${openMarker('results/bench.md')}\n| a | b |\n|---|---|\n| 1 | 2 |\n${CLOSE}\n\nmore\n`);
    writeFileSync(join(tmp, 'README.md'), doc.generated);
    expect(generateDocs(tmp)[0].generated).toBe(generateDocs(tmp)[0].current);
  });

  it('a missing source or an unclosed block is an error that names it', () => {
    writeFileSync(join(tmp, 'README.md'), `${openMarker('results/none.md')}\nx\n${CLOSE}\n`);
    expect(() => generateDocs(tmp)).toThrow(/README\.md: the block's source results\/none\.md does not exist/);
    expect(() => findBlocks(`${openMarker('a.md')}\nx\n`, 'X.md')).toThrow(/X\.md: the generated block from a\.md has no/);
    expect(fillBlocks('no blocks here\n', () => 'x')).toBe('no blocks here\n');
  });

  it("the npm start summary is rendered from the recorded stats: the kept columns add up", () => {
    const stats = emptyStats(['Calculator', 'QA']);
    Object.assign(stats, { docsRead: 30, docsWithKeptCall: 10 });
    Object.assign(stats.tools.Calculator, { docs: 17, scored: 2468, kept: 7, reasons: { below_tau_f: 2449, below_control: 12, kept: 7 } });
    const record: StartRecord = {
      command: 'npm start', measured: '2026-12-01T13:00:00.000Z', seconds: 45.2, loadAverage: 0.5, cores: 2, annotateSeconds: 41.9,
      samplingProbe: { Calculator: { samples: 100, parsed: 0 }, QA: { samples: 100, parsed: 40 } }, stats, kept: [],
    };
    const text = renderBlock({ source: 'start.json', view: 'summary' }, JSON.stringify(record));
    expect(text).toContain('Calculator: 0 of 100 calls sampled at its worked examples parsed; no LM sampling for Calculator');
    expect(text).not.toContain('QA: 40 of 100');
    expect(text).toContain('30 documents read, 0 bad records, 10 documents with a kept call, 41.9 s');
    // The last lines: where the data is and how to look at it, as annotate prints them.
    expect(text).toContain('wrote out/start/: train.jsonl (the finetuning data: 10 documents with their kept calls inlined), calls.jsonl');
    expect(text).toContain("look at it: `npm run web`, then open out/start/calls.jsonl in the page's run viewer");
    const row = text.split('\n').find((l) => l.startsWith('Calculator  '))!.trim().split(/\s+/);
    // tool docs positions lm programmatic scored ≥τ_f control kept …
    expect(row.slice(5, 9)).toEqual(['2468', '19', '-12', '7']);
    expect(() => renderBlock({ source: 'start.json', view: 'nope' }, '{}')).toThrow(/no such view/);
    expect(() => renderBlock({ source: 'start.json' }, '{}')).toThrow(/needs a view/);
  });

  it("a model's train-record.json becomes its probe table and run line", () => {
    const record: TrainRecordProbes = {
      step: 1800, tokensSeen: 3_686_400, trainSeconds: 2134.4, params: 1_874_944, valLoss: 3.9341,
      copy: { first: -6.1098, second: -1.9351, gain: 4.1747 }, tool: { medianDrop: 2.4023, medianUnrelatedDrop: -0.02496 },
    };
    const text = renderBlock({ source: 'models/default/train-record.json', view: 'trainRecord' }, JSON.stringify(record));
    expect(text).toContain('| validation loss | 3.93 nats/token | |');
    expect(text).toContain('| **+4.17** nats/token (−6.11 → −1.94) | ≥ 3 |');
    expect(text).toContain('| … when an unrelated result is given | −0.02 | ≤ 0.1 |');
    expect(text).toContain('1,800 steps, 3.69M tokens, 36 minutes of training (1,727 tokens/s on average); 1.87M parameters.');
    const worse = renderBlock({ source: 'x.json', view: 'trainRecord' }, JSON.stringify({ ...record, copy: { ...record.copy, gain: -0.5 } }));
    expect(worse).toContain('**−0.50** nats/token');
  });

  it('test durations: minutes for a long suite, seconds under 90 s (a 23 s suite is not "0 min")', () => {
    const run = (wallSeconds: number): TestRunRecord => ({
      command: 'npm test', measured: '2026-12-05T01:56:01.162Z', wallSeconds, cpuSeconds: 40, loadAverage: { before: 1.9, after: 3 },
      cores: 2, files: 55, tests: { passed: 300, failed: 0, skipped: 0 },
    });
    const text = renderBlock({ source: 'tests.json', view: 'testDurations' }, JSON.stringify({ full: run(603.17), fast: { ...run(22.55), command: 'npm run test:fast' } }));
    expect(text).toContain('`npm test` took **10 min** (603 s wall');
    expect(text).toContain('`npm run test:fast` took **23 s** (23 s wall');
    expect(renderBlock({ source: 'tests.json', view: 'testDurations' }, JSON.stringify({ full: run(603) }))).toContain('`npm run test:fast`: not recorded yet');
  });

  // Each case: a view, the record it renders (as its committed source file holds it), and what its block must say.
  it.each([
    {
      shows: 'the replica differences table has one row per dtype with its tolerance',
      source: 'replicas.json', view: 'replicas', record: REPLICAS,
      says: ['Transformers.js 4.3.2 log p| over the 19 scored tokens', '| fp32 | `model.onnx` | 1.0e-6 | 1e-4 |', '| fp16 | `model_fp16.onnx` | 4.1e-3 | 1e-2 |'],
    },
    {
      shows: "web/README's production first-visit sentence carries the recorded bytes, time and funnel",
      source: 'first-visit-build.json', view: 'firstVisitBuild', record: FIRST_VISIT_BUILD,
      says: [
        '**10.19 MB**', '**20.4 s**: 80 proposed → 50 executed → 50 scored → 2 kept.', '`web/e2e/explorer-first.test.ts`',
        'compressed (raw): `model.onnx` 6.88 MB (7.51 MB); the WebGPU (JSEP) runtime, fetched only when WebGPU is chosen, would be `ort-wasm-simd-threaded.jsep.wasm` 6.10 MB (28.35 MB).',
      ],
    },
    {
      shows: "web/README's first-visit sentences carry the recorded times and counts",
      source: 'first-visit.json', view: 'firstVisit', record: FIRST_VISIT,
      says: [
        'loaded once, with no reload',
        "the model was ready after **22.4 s** and the explorer's first result showed after **45.7 s**",
        '80 candidate calls over 48 tokens, scored in 23.2 s: 50 calls reached scoring and 2 are kept at τ_f 0.5',
      ],
    },
  ])('$shows', ({ source, view, record, says }) => {
    const text = renderBlock({ source, view }, JSON.stringify(record));
    for (const sentence of says) expect(text).toContain(sentence);
  });

  it("web/README's first-visit sentences say the bytes sent when recorded, and when the page reloaded", () => {
    const firstVisit = (record: FirstVisitRecord) => renderBlock({ source: 'first-visit.json', view: 'firstVisit' }, JSON.stringify(record));
    expect(firstVisit({ ...FIRST_VISIT, firstVisitBytes: 13_762_067 })).toContain('with **13.76 MB** sent by the server until then');
    expect(firstVisit({ ...FIRST_VISIT, reloads: 1 })).toContain('reloaded 1×');
  });
});

describe("CI runs the README's Quick start", () => {
  it('.ci/run takes its commands from the Quick start block and sets no environment of its own', () => {
    const commands = execFileSync('bash', ['.ci/quick-start-commands.sh', 'README.md'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n');
    expect(commands[0]).toMatch(/^npm install\b/);
    expect(commands).toContain('npm test');
    const run = readFileSync(join(ROOT, '.ci/run'), 'utf8');
    expect(run).toContain('quick-start-commands.sh README.md');
    expect(run).not.toMatch(/^\s*export\s|ONNXRUNTIME_NODE_INSTALL/m);
  });
  it('a README whose Quick start block has gone yields no commands (and .ci/run then fails)', () => {
    writeFileSync(join(tmp, 'NOQS.md'), '# x\n\n## Usage\n\n```bash\nnpm start\n```\n');
    expect(execFileSync('bash', [join(ROOT, '.ci/quick-start-commands.sh'), join(tmp, 'NOQS.md')], { encoding: 'utf8' })).toBe('');
  });
});
