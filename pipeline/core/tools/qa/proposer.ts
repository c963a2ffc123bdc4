import { tail } from '../../text/spans.ts';
import { findEntities } from './entities.ts';
import { MAX_PROPOSALS } from '../spec.ts';
import { formatQuestion, type Relation } from './questions.ts';

/** Entities asked about, most recent first. */
const ENTITIES = 4;
/** Relations asked per entity. */
const RELATIONS_PER_ENTITY = 3;
/** How far back (characters) the prefix is searched for cue words and entities. */
export const QA_LOOKBACK_CHARS = 600;

/** Cue words in the last ~80 characters of the prefix, and the relation each suggests. */
const CUES: ReadonlyArray<[RegExp, Relation]> = [
  [/\bcapital\b/i, 'capital'],
  [/\b(?:population|inhabitants|people|residents|citizens)\b/i, 'population'],
  [/\b(?:currency|pesos?|dollars?|euros?|francs?|pounds?|yen|rupees?)\b/i, 'currency'],
  [/\b(?:language|languages|spoken|speak)\b/i, 'language'],
  [/\b(?:area|sq km|square (?:miles|kilometers)|size)\b/i, 'area'],
  [/\b(?:independence|independent)\b/i, 'independence'],
  [/\bcontinent\b/i, 'continent'],
  [/\b(?:element|symbol|atomic)\b/i, 'symbol'],
  [/\b(?:located|lies|situated|country)\b/i, 'country'],
];
/**
 * Asked when no cue is near: the commonest facts in the knowledge base. Not "Who is X?": its answers are dictionary
 * glosses of the name's most frequent sense ("French" → a sculptor, "Land" → an inventor), not words a text goes on
 * with.
 */
const DEFAULT_RELATIONS: readonly Relation[] = ['capital', 'population'];

/**
 * QA questions about the entities before the position, in the forms the QA tool parses (`formatQuestion` from
 * questions.ts, so proposer and tool agree by construction). Entities: the document's topic — the name before the
 * colon of a title line such as "Saint Vincent and the Grenadines: People and Society." (the Factbook's), else the
 * document's first entity — and the 4 most recent distinct entities. Relations: those suggested by cue words near
 * the position ("Population:" → "What is the population of X?"), then capital and population; at most 3. Questions
 * go relation by relation (each relation for the topic, then for the recent entities), at most 10. ALL-CAPS names
 * from the Factbook ("FRANCO") are written in title case.
 */
export function proposeQA(prefix: string): string[] {
  const window = tail(prefix, QA_LOOKBACK_CHARS);
  const seen = new Set<string>();
  const entities: string[] = [];
  const add = (raw: string) => {
    const name = titleCaseCaps(raw);
    if (seen.has(name.toLowerCase())) return;
    seen.add(name.toLowerCase());
    entities.push(name);
  };
  const topic = documentTopic(prefix);
  if (topic) add(topic);
  for (const e of findEntities(window).reverse()) {
    if (entities.length === ENTITIES + (topic ? 1 : 0)) break;
    add(e.text);
  }
  const near = prefix.slice(-80);
  const cued = CUES.filter(([re]) => re.test(near)).map(([, r]) => r);
  const relations = [...new Set([...cued, ...DEFAULT_RELATIONS])].slice(0, RELATIONS_PER_ENTITY);
  const calls: string[] = [];
  for (const relation of relations) {
    for (const entity of entities) calls.push(formatQuestion(relation, entity));
  }
  return calls.slice(0, MAX_PROPOSALS);
}

/** A title line "Name: Section." (or "Name: Section (continued).") at the start of the text gives the topic. */
const TITLE_LINE = /^([^:\n]{2,60}): [^:\n]{2,60}\.\n/;

/** What the document is about: the name of its title line, else its first entity; null when neither is before `prefix`'s end. */
export function documentTopic(prefix: string): string | null {
  const title = TITLE_LINE.exec(prefix);
  if (title) return title[1].replace(/\s*\(.*\)\s*$/, '').trim(); // "Holy See (Vatican City)" → "Holy See"
  return findEntities(prefix.slice(0, 300))[0]?.text ?? null;
}

/** "Francisco FRANCO" → "Francisco Franco"; "NATO", "EU" (≤ 4 letters, likely acronyms) stay. */
function titleCaseCaps(name: string): string {
  return name.replace(/\b[A-Z][A-Z'’-]{4,}\b/g, (w) => w[0] + w.slice(1).toLowerCase());
}
