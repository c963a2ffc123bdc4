/**
 * `npx tsx pipeline/eval/toolkens/report.ts`: rebuilds the toolkens comparison (build-report.ts) and writes
 * results/toolkens.json, toolkens.md and toolkens-verdict.md (markdown.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildReport, RESULTS } from './build-report.ts';
import { markdown, verdict } from './markdown.ts';

const r = buildReport();
writeFileSync(join(RESULTS, 'toolkens.json'), JSON.stringify(r, null, 2) + '\n');
writeFileSync(join(RESULTS, 'toolkens.md'), markdown(r));
writeFileSync(join(RESULTS, 'toolkens-verdict.md'), verdict(r));
console.log(markdown(r));
