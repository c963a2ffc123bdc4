/**
 * The import direction of the repository, checked by dependency-cruiser (`npm run lint:deps`; also run by
 * pipeline/architecture.test.ts, so `npm test` fails on a violation).
 *
 * Layers, lowest first; a layer imports only from layers below it (or itself):
 *   pipeline/random/  the seeded generator (mulberry32): imports nothing of ours; every layer may use it
 *   pipeline/onnx/    the runtime's graph edits (the scoring head, hidden states, external data, the graph index, the
 *                     dtype files, the int8 range check) over the ONNX writer: needs nothing of ours
 *   pipeline/io/      Node file helpers (JSONL): needs nothing of ours; everything above core may use it
 *   pipeline/core/    the isomorphic pipeline (no node:*, no platform runtime): imports core/, onnx/ and random/ only
 *   pipeline/onnx-export/  the model writers: GPT-2 and Llama graphs and weights, the dtype replicas (quantizers),
 *                     the tiny test models; over onnx/ and core/, and neither core/, onnx/ nor web/src/ imports them
 *   pipeline/train/, pipeline/eval/, pipeline/data/   libraries over core (eval's task families use train's data)
 *   pipeline/node/    the Node edge and the one CLI: drives core, train (finetune) and eval (the eval command)
 *   web/src/          the browser app over core/; web/e2e/ (its browser tests' harness) runs in Node, may import node/
 *   pipeline/bench/   measures the Node edge and the browser: may import node/ and web/ (its bench build swaps its own
 *                     worker requests into the app); nothing imports bench/, tests and web/ included
 *   pipeline/docs/    fills the READMEs' generated blocks from result files: may import node/; nothing imports it
 * Inside core/, floors (CORE_FLOORS below, lowest first); a floor imports only from floors below it and itself:
 *   records   document.ts, candidates.ts (a candidate and its losses), median.ts,
 *             run-defaults.ts (the run's defaults table)
 *   text, lm  text/ span finders and comparisons; lm/ the CausalLM interface and its ONNX backend
 *   tools     tools/ (each tool's folder: its prompt, proposer, text heuristics; catalogs/), call-syntax.ts (how a call is
 *             written), retrieval/ (which tools fit a text)
 *   sampling, scoring   sampling/ (p_i, positions, sampled calls), scoring/ (the paper's losses, judging)
 *   plan      config.ts: a run's settings and their checks (tools only as the ToolSpec type: no tool, no registry);
 *             default-config.ts: the defaults for the registry's tools; run-plan.ts: flags → the frozen plan
 *   stages    stages/: one document's way through prefilter → propose → execute → score → inline; the probes
 *   top       generate/, toolkens/ (ToolkenGPT), export/, stats.ts: what runs over the stages
 * Test files (*.test.ts) sit beside the code they test and may reach up (a core test loads a model through
 * node/model/load-model.ts); nothing imports a test, so this makes no cycle. `testing/` folders hold test helpers:
 * only tests, other testing modules and web/e2e/ (the browser tests' harness) import them. No cycles anywhere.
 */
const TEST = '(\\.test\\.ts$|(^|/)testing/|^web/e2e/)';
/** The lab's drivers: scripts that measure the product through the Node pipeline (issue 48: the lab apart). */
const LAB_DRIVERS = '^pipeline/eval/(retrieval|toolkens)/';

/** The floors inside pipeline/core/, lowest first: a name and the paths (under pipeline/core/) on it. */
const CORE_FLOORS = [
  ['records', ['document\\.ts$', 'candidates\\.ts$', 'median\\.ts$', 'run-defaults\\.ts$']],
  ['text-and-lm', ['text/', 'lm/']],
  ['tools', ['tools/', 'call-syntax\\.ts$', 'retrieval/']],
  ['sampling-and-scoring', ['sampling/', 'scoring/']],
  ['plan', ['config\\.ts$', 'default-config\\.ts$', 'run-plan\\.ts$']],
  ['stages', ['stages/']],
  ['top', ['generate/', 'toolkens/', 'export/', 'stats\\.ts$']],
];
const corePaths = (floors) => `^pipeline/core/(${floors.flatMap(([, paths]) => paths).join('|')})`;

/** A forbidden import: modules matching `from` must not import modules matching `to` (`comment` says why). */
const forbid = (name, comment, from, to) => ({ name, severity: 'error', comment, from, to });
/**
 * A layer of the repository: its modules (tests aside) import of ours only the pipeline/ folders in `allowed`
 * (itself included) — nothing else of pipeline/, and nothing of web/, corpus/ or models/.
 */
const layer = (name, comment, folder, allowed) =>
  forbid(name, comment, { path: `^pipeline/${folder}`, pathNot: TEST }, { path: `^(pipeline/(?!${allowed.join('|')})|web/|corpus/|models/)` });

/** One rule per floor below the top: it imports nothing from the floors above it. */
const coreFloorRules = CORE_FLOORS.slice(0, -1).map(([name], i) =>
  forbid(
    `core-floor-${name}`,
    `Inside core/, ${name} imports only from its own floor and those below (.dependency-cruiser.cjs CORE_FLOORS).`,
    { path: corePaths([CORE_FLOORS[i]]), pathNot: TEST },
    { path: corePaths(CORE_FLOORS.slice(i + 1)) },
  ),
);

module.exports = {
  forbidden: [
    forbid('no-circular', 'A cycle means two modules are one concept, or a shared piece lives in the wrong one: move it.', {}, { circular: true }),
    layer(
      'random-is-lowest',
      'pipeline/random/ is the seeded generator every layer draws from: it imports nothing of the repository, so no cycle can pass through it.',
      'random/',
      ['random/'],
    ),
    layer(
      'onnx-is-lowest',
      'pipeline/onnx/ edits and reads graphs for the runtime; it imports nothing else of the repository but the seeded generator (random/).',
      'onnx/',
      ['onnx/', 'random/'],
    ),
    layer(
      'exporters-over-the-runtime',
      "pipeline/onnx-export/ writes models with the runtime's pieces: it imports onnx/, core/ and random/ only.",
      'onnx-export/',
      ['onnx-export/', 'onnx/', 'core/', 'random/'],
    ),
    forbid(
      'runtime-knows-no-exporter',
      'What runs a model (onnx/, core/, the browser app) never needs what writes one: pipeline/onnx-export/ sits above them.',
      { path: '^(pipeline/(onnx|core|io|random)/|web/src/)', pathNot: TEST },
      { path: '^pipeline/onnx-export/' },
    ),
    layer('io-is-lowest', 'pipeline/io/ reads and writes files for the Node side; it imports nothing else of the repository.', 'io/', ['io/']),
    layer(
      'core-imports-core-and-onnx-only',
      'pipeline/core/ is shared unchanged by Node and the browser: only core/, onnx/ and random/ (and npm packages).',
      'core/',
      ['core/', 'onnx/', 'random/'],
    ),
    ...coreFloorRules,
    forbid(
      'core-config-knows-no-tool',
      "config.ts is the settings and their checks: tools only as the ToolSpec type (tools/spec.ts); the registry's list enters in default-config.ts and run-plan.ts.",
      { path: '^pipeline/core/config\\.ts$' },
      { path: '^pipeline/core/(tools/(?!spec\\.ts$)|call-syntax\\.ts$|retrieval/)' },
    ),
    forbid(
      'core-module-on-a-floor',
      'Every module of core/ sits on a floor: add a new file or folder to CORE_FLOORS in .dependency-cruiser.cjs.',
      { path: '^pipeline/core/', pathNot: [TEST, corePaths(CORE_FLOORS)] },
      { path: '^pipeline/' },
    ),
    forbid(
      'core-no-platform',
      'No node:* module and no platform runtime in core/: the platform (ort module, fetch, files) is passed in.',
      { path: '^pipeline/core/', pathNot: TEST },
      { dependencyTypes: ['core'] },
    ),
    forbid(
      'core-no-platform-runtime',
      'onnxruntime-node / onnxruntime-web are chosen by the edge (node/model/load-model.ts, web/src/ort-web.ts).',
      { path: '^pipeline/core/', pathNot: TEST },
      { path: '(^|/)onnxruntime-(node|web)(/|$)', dependencyTypesNot: ['type-only'] },
    ),
    forbid(
      'libraries-below-node',
      'train/, eval/ and data/ are libraries the CLI (node/) drives; they must not import node/ back — except the lab ' +
        'drivers in eval/retrieval/ and eval/toolkens/ (tables measured through the Node pipeline), which sit on top.',
      { path: '^pipeline/(train|eval|data)/', pathNot: [TEST, LAB_DRIVERS] },
      { path: '^(pipeline/(node|bench)/|web/)' },
    ),
    forbid(
      'lab-drivers-on-top',
      'The lab drivers (eval/retrieval/, eval/toolkens/) measure the product; nothing but the lab imports them.',
      { path: '^(pipeline/(core|node|io|onnx|onnx-export|train|data|gguf)/|web/src/)', pathNot: TEST },
      { path: LAB_DRIVERS },
    ),
    forbid(
      'bench-and-docs-on-top',
      'bench/ and docs/ sit on top (they measure and document node/ and web/): nothing else imports them, no test and nothing in web/ either.',
      { pathNot: '^pipeline/(bench|docs)/' },
      { path: '^pipeline/(bench|docs)/' },
    ),
    forbid(
      'pipeline-below-web',
      'The pipeline does not know the web app: only bench/ and docs/ (on top) and tests import web/.',
      { path: '^pipeline/(?!bench/|docs/)', pathNot: TEST },
      { path: '^web/' },
    ),
    forbid(
      'web-app-over-core',
      'The browser app (web/src/) uses core/, onnx/, random/ and data/*.json (the KB), never the Node edge, train/, eval/ or bench/.',
      { path: '^web/src/', pathNot: TEST },
      { path: '^pipeline/(?!core/|onnx/|random/|data/[^/]+\\.json$)' },
    ),
    forbid(
      'testing-only-from-tests',
      'testing/ folders are test helpers: imported by tests, other testing modules and web/e2e/ only.',
      { pathNot: TEST },
      { path: '(^|/)testing/' },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|out|\\.cache)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
