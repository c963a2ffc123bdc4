import { findEntities, tail } from '../../text/spans.ts';
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
/** Asked when no cue is near: the commonest facts in the knowledge base. */
const DEFAULT_RELATIONS: readonly Relation[] = ['capital', 'population', 'definition'];

/**
 * QA questions about the entities just before the position, in the forms the QA tool parses (`formatQuestion`
 * from questions.ts, so proposer and tool agree by construction): the 4 most recent distinct entities, each with
 * the relations suggested by cue words near the position ("capital" → "What is the capital of X?") and then the
 * defaults capital, population, definition ("Who is X?"); 3 relations per entity, at most 10 calls.
 * ALL-CAPS names from the Factbook ("FRANCO") are written in title case.
 */
export function proposeQA(prefix: string): string[] {
  const window = tail(prefix, QA_LOOKBACK_CHARS);
  const seen = new Set<string>();
  const entities: string[] = [];
  for (const e of findEntities(window).reverse()) {
    const name = titleCaseCaps(e.text);
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    entities.push(name);
    if (entities.length === ENTITIES) break;
  }
  const near = prefix.slice(-80);
  const cued = CUES.filter(([re]) => re.test(near)).map(([, r]) => r);
  const relations = [...new Set([...cued, ...DEFAULT_RELATIONS])].slice(0, RELATIONS_PER_ENTITY);
  const calls: string[] = [];
  for (const entity of entities) {
    for (const relation of relations) calls.push(formatQuestion(relation, entity));
  }
  return calls.slice(0, MAX_PROPOSALS);
}

/** "Francisco FRANCO" → "Francisco Franco"; "NATO", "EU" (≤ 4 letters, likely acronyms) stay. */
function titleCaseCaps(name: string): string {
  return name.replace(/\b[A-Z][A-Z'’-]{4,}\b/g, (w) => w[0] + w.slice(1).toLowerCase());
}
