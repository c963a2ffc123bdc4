/**
 * The import direction (.dependency-cruiser.cjs) holds on the tree, and the check can fail: a fixture tree plants
 * one back-import per rule and every rule must report it. Runs dependency-cruiser in-process (no subprocess).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
/** What `npm run lint:deps` cruises. */
const TREE = ['pipeline', 'web', 'corpus', 'models'];

async function violations(baseDir: string, paths: string[]): Promise<IViolation[]> {
  const options: ICruiseOptions = { ...(await extractDepcruiseOptions(CONFIG)), validate: true, baseDir };
  const tsConfig = extractTSConfig(join(ROOT, 'tsconfig.json'));
  const result = await cruise(paths, options, { bustTheCache: true }, { tsConfig });
  if (typeof result.output === 'string') throw new Error('expected a cruise result object');
  return result.output.summary.violations;
}

const show = (v: IViolation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

describe('import direction', () => {
  it('the repository has no violation', async () => {
    expect((await violations(ROOT, TREE)).map(show)).toEqual([]);
  });

  // One planted back-import per rule, as a file path → source text. Test files and testing/ modules that are allowed
  // to reach up are planted too: they must NOT be reported.
  const planted: Record<string, string> = {
    'pipeline/onnx/graph.ts': "import { x } from '../core/text/ok.ts';\nexport const g = x;\n", // onnx-is-lowest
    'pipeline/onnx/weights.ts': "import { r } from '../random/mulberry32.ts';\nexport const w = r;\n", // allowed: the seeded random
    'pipeline/onnx/uses-core-random.ts': "import { cr } from '../core/random.ts';\nexport const ucr = cr;\n", // onnx-is-lowest: core has no exception
    'pipeline/core/random.ts': "export const cr = 1;\n",
    // The exporters sit above the runtime: they may use onnx/ and core/; nothing that runs a model imports them.
    'pipeline/onnx-export/writer.ts': "import { w } from '../onnx/weights.ts';\nimport { x } from '../core/text/ok.ts';\nexport const ew = [w, x];\n", // allowed
    'pipeline/onnx-export/uses-node.ts': "import { n } from '../node/edge.ts';\nexport const eun = n;\n", // exporters-over-the-runtime
    'pipeline/onnx/uses-exporter.ts': "import { ew } from '../onnx-export/writer.ts';\nexport const oue = ew;\n", // runtime-knows-no-exporter (and onnx-is-lowest)
    'pipeline/core/lm/uses-exporter.ts': "import { ew } from '../../onnx-export/writer.ts';\nexport const cue = ew;\n", // runtime-knows-no-exporter (and core's own rule)
    'pipeline/core/lm/exporter.test.ts': "import { ew } from '../../onnx-export/writer.ts';\nexport const t = ew;\n", // allowed: a test writes its model
    'web/src/uses-exporter.ts': "import { ew } from '../../pipeline/onnx-export/writer.ts';\nexport const wue = ew;\n", // runtime-knows-no-exporter (and web-app-over-core)
    'pipeline/random/mulberry32.ts': "import { d } from '../core/document.ts';\nexport const r = d;\n", // random-is-lowest
    'pipeline/core/document.ts': 'export const d = 1;\n',
    'pipeline/core/text/ok.ts': 'export const x = 1;\n',
    'pipeline/core/text/reads-file.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n", // core-no-platform
    'pipeline/core/stages/uses-node.ts': "import { n } from '../../node/edge.ts';\nexport const u = n;\n", // core-imports-core-and-onnx-only
    'pipeline/core/lm/ort.ts': "import * as ort from 'onnxruntime-node';\nexport const o = ort;\n", // core-no-platform-runtime
    'pipeline/core/stages/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n", // no-circular (reported once per cycle)
    'pipeline/core/stages/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    // The floors inside core: text up into stages, tools up into sampling (the old sampling ⇄ tools), stages up
    // into the top; a module on no floor; and downward imports, which are allowed.
    'pipeline/core/text/up.ts': "import { a } from '../stages/a.ts';\nexport const up = a;\n", // core-floor-text-and-lm
    'pipeline/core/tools/up.ts': "import { s } from '../sampling/down.ts';\nexport const t = s;\n", // core-floor-tools
    'pipeline/core/sampling/down.ts': "import { x } from '../text/ok.ts';\nexport const s = x;\n", // allowed
    'pipeline/core/stages/up.ts': "import { st } from '../stats.ts';\nexport const su = st;\n", // core-floor-stages
    'pipeline/core/stats.ts': "import { a } from './stages/a.ts';\nexport const st = a;\n", // allowed: the top
    'pipeline/core/config.ts': "import { t } from './tools/up.ts';\nexport const c = t;\n", // core-config-knows-no-tool
    'pipeline/core/default-config.ts': "import { t } from './tools/up.ts';\nexport const dc = t;\n", // allowed
    'pipeline/core/unplaced.ts': "import { x } from './text/ok.ts';\nexport const un = x;\n", // core-module-on-a-floor
    'pipeline/core/stages/ok.test.ts': "import { n } from '../../node/edge.ts';\nimport { f } from '../testing/fake.ts';\nexport const t = [n, f];\n",
    'pipeline/core/testing/fake.ts': "import { x } from '../text/ok.ts';\nexport const f = x;\n",
    'pipeline/node/edge.ts': "import { x } from '../core/text/ok.ts';\nexport const n = x;\n",
    'pipeline/node/uses-bench.ts': "import { m } from '../bench/measure.ts';\nexport const ub = m;\n", // bench-and-docs-on-top
    'pipeline/node/uses-fake.ts': "import { f } from '../core/testing/fake.ts';\nexport const uf = f;\n", // testing-only-from-tests
    'pipeline/eval/uses-node.ts': "import { n } from '../node/edge.ts';\nexport const e = n;\n", // libraries-below-node
    'pipeline/bench/measure.ts': "import { n } from '../node/edge.ts';\nimport { o } from '../../web/src/ok.ts';\nexport const m = [n, o];\n", // allowed: bench over node and the app
    'pipeline/node/uses-web.ts': "import { o } from '../../web/src/ok.ts';\nexport const uw = o;\n", // pipeline-below-web
    'web/src/uses-node.ts': "import { n } from '../../pipeline/node/edge.ts';\nexport const w = n;\n", // web-app-over-core
    'web/src/uses-bench.ts': "import { m } from '../../pipeline/bench/measure.ts';\nexport const ub = m;\n", // bench-and-docs-on-top
    'web/e2e/bench-harness.ts': "import { m } from '../../pipeline/bench/measure.ts';\nexport const bh = m;\n", // bench-and-docs-on-top: e2e too
    'web/e2e/bench.test.ts': "import { m } from '../../pipeline/bench/measure.ts';\nexport const bt = m;\n", // bench-and-docs-on-top: tests too
    'web/src/ok.ts': "export const o = 1;\n",
  };
  const fixture = mkdtempSync(join(tmpdir(), 'architecture-'));
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('reports each planted back-import under its rule, and nothing allowed', async () => {
    for (const [path, text] of Object.entries(planted)) {
      mkdirSync(dirname(join(fixture, path)), { recursive: true });
      writeFileSync(join(fixture, path), text);
    }
    const found = (await violations(fixture, ['pipeline', 'web'])).map((v) => `${v.rule.name}: ${v.from}`).sort();
    expect(found).toEqual([
      'bench-and-docs-on-top: pipeline/node/uses-bench.ts',
      'bench-and-docs-on-top: web/e2e/bench-harness.ts',
      'bench-and-docs-on-top: web/e2e/bench.test.ts',
      'bench-and-docs-on-top: web/src/uses-bench.ts',
      'core-config-knows-no-tool: pipeline/core/config.ts',
      'core-floor-stages: pipeline/core/stages/up.ts',
      'core-floor-text-and-lm: pipeline/core/text/up.ts',
      'core-floor-tools: pipeline/core/tools/up.ts',
      'core-imports-core-and-onnx-only: pipeline/core/lm/uses-exporter.ts',
      'core-imports-core-and-onnx-only: pipeline/core/stages/uses-node.ts',
      'core-module-on-a-floor: pipeline/core/unplaced.ts',
      'core-no-platform-runtime: pipeline/core/lm/ort.ts',
      'core-no-platform: pipeline/core/text/reads-file.ts',
      'exporters-over-the-runtime: pipeline/onnx-export/uses-node.ts',
      'libraries-below-node: pipeline/eval/uses-node.ts',
      'no-circular: pipeline/core/stages/a.ts',
      'onnx-is-lowest: pipeline/onnx/graph.ts',
      'onnx-is-lowest: pipeline/onnx/uses-core-random.ts',
      'onnx-is-lowest: pipeline/onnx/uses-exporter.ts',
      'pipeline-below-web: pipeline/node/uses-web.ts',
      'random-is-lowest: pipeline/random/mulberry32.ts',
      'runtime-knows-no-exporter: pipeline/core/lm/uses-exporter.ts',
      'runtime-knows-no-exporter: pipeline/onnx/uses-exporter.ts',
      'runtime-knows-no-exporter: web/src/uses-exporter.ts',
      'testing-only-from-tests: pipeline/node/uses-fake.ts',
      'web-app-over-core: web/src/uses-bench.ts',
      'web-app-over-core: web/src/uses-exporter.ts',
      'web-app-over-core: web/src/uses-node.ts',
    ]);
  });
});

/** The folders that ship: code and tests only; what measures them commits its results in the lab (pipeline/bench, pipeline/docs, pipeline/eval …). */
const SOURCE_FOLDERS = ['pipeline/core/', 'pipeline/node/', 'web/src/'];
const resultsInSource = (paths: string[]) => paths.filter((p) => SOURCE_FOLDERS.some((f) => p.startsWith(f)) && p.includes('/results/'));

/**
 * What web/ holds: the app (src/, index.html), its browser tests (e2e/, and the screenshots they record), the Vite
 * config and its plugins, the README. The web bench and its worker requests live in pipeline/bench (bench-build.ts).
 */
const WEB_ENTRY = /^web\/(src\/|e2e\/|screenshots\/|index\.html$|README\.md$|vite\.config\.ts$|[a-z-]+-plugin(\.test)?\.ts$)/;
const notWebApp = (paths: string[]) => paths.filter((p) => p.startsWith('web/') && !WEB_ENTRY.test(p));

describe('the lab apart from the product', () => {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');

  it('no committed result file in pipeline/core, pipeline/node or web/src (a planted one is found)', () => {
    expect(tracked.length).toBeGreaterThan(100);
    expect(resultsInSource(tracked)).toEqual([]);
    expect(resultsInSource([...tracked, 'pipeline/node/results/start.json', 'web/src/ui/results/x.md'])).toEqual(['pipeline/node/results/start.json', 'web/src/ui/results/x.md']);
  });

  it('web/ holds the app, its e2e tests and the Vite config only (a planted bench script is found)', () => {
    expect(tracked.filter((p) => p.startsWith('web/src/')).length).toBeGreaterThan(10);
    expect(notWebApp(tracked)).toEqual([]);
    expect(notWebApp([...tracked, 'web/bench.ts', 'web/vite.config.ts'])).toEqual(['web/bench.ts']);
  });
});
