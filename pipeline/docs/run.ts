/**
 * npm run docs            fill every generated README block from the committed result file it names
 * npm run docs -- --check list stale blocks, and measured numbers typed by hand outside a generated block in the top,
 *                         web/, models/ or any pipeline/ README (measured.ts), and exit 1 (what
 *                         pipeline/docs/docs.test.ts and measured.test.ts assert in CI)
 *
 * The result files are written by what measures: `npm run bench` (pipeline/bench/results/), `npm run eval:data`
 * and `toolformer eval` (pipeline/eval/…/results/), `npm run docs:start` (pipeline/docs/results/start.json),
 * `npm run docs:web` (web/e2e/results/first-visit.json and web/screenshots/), `npm run docs:tests -- --suite fast|full`
 * (pipeline/docs/results/tests.json: how long the test suites take), `npm run docs:replicas`
 * (pipeline/onnx-export/results/replicas.json: our scorer against Transformers.js per dtype replica).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { generateDocs, handTypedProblems, handTypedReadmes, writeDocs } from './docs.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });

if (values.check) {
  const stale = generateDocs(ROOT).filter((d) => d.generated !== d.current);
  for (const d of stale) console.error(`stale: ${d.file} (blocks from ${d.sources.join(', ')}): run npm run docs`);
  const readmes = handTypedReadmes(ROOT);
  const problems = handTypedProblems(readmes);
  for (const p of problems) console.error(p);
  for (const r of readmes.filter((r) => r.pending && r.numbers.length)) console.error(`not yet generated: ${r.file}, ${r.numbers.length} measured numbers typed by hand (${r.pending})`);
  process.exit(stale.length || problems.length ? 1 : 0);
}
const written = writeDocs(ROOT);
for (const file of written) console.log(`updated ${file}`);
if (!written.length) console.log('every generated block is up to date');
