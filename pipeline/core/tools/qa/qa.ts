import MiniSearch from 'minisearch';
import type { ToolRunner } from '../spec.ts';
import type { ToolResult } from '../tool.ts';
import { parseQuestion, type Relation } from './questions.ts';

/**
 * The paper's QA tool, answered from a local knowledge base instead of Atlas: short factual questions in the
 * forms of questions.ts → short answers ("What is the capital of Pennsylvania?" → "Harrisburg").
 * Retrieval: exact match on the normalized subject, else a typo fix for long names only (see `fuzzyMatch`; minisearch
 * of each term) that must be unambiguous. Anything else — an unknown form, an unknown subject, an ambiguous
 * one — is an error result, never a guess. The KB is passed in (pipeline/data/kb.json, built by build-kb.ts).
 */

/** One fact: "Pennsylvania" capital "Harrisburg" from "us-states-capitals". */
export interface Fact {
  subject: string;
  relation: Relation;
  object: string;
  /** Key into KnowledgeBase.sources. */
  source: string;
}

export interface KnowledgeBase {
  /** Where the facts come from: package, version, licence. */
  sources: Record<string, { package: string; version: string; license: string }>;
  facts: Fact[];
}

/** Shortest subject (letters and digits) a one-edit typo fix is tried for. */
export const FUZZY_MIN_LENGTH = 10;

/**
 * The answer in the form a text would go on with: the fact up to its first parenthesis or semicolon
 * ("4,167 sq km (118 islands and atolls" → "4,167 sq km"), so a result is the few words the text says next.
 */
export function shortAnswer(object: string): string {
  const cut = object.split(/\s*[(;]/)[0].trim();
  return cut === '' ? object.trim() : cut;
}

/** Questions longer than this are rejected (the longest real subject is ~60 characters). */
export const MAX_QUESTION_LENGTH = 300;

export interface QAAnswer {
  answer: string;
  fact: Fact;
  /** `exact`: normalized subjects equal; `fuzzy`: matched through minisearch. */
  match: 'exact' | 'fuzzy';
}

/**
 * Lookup key for a subject: case, accents, punctuation and a leading "the" do not matter.
 * `subjectKey('The Bahamas')` === `subjectKey('bahamas')` === "bahamas"; "Côte d'Ivoire" → "cote d ivoire".
 */
export function subjectKey(subject: string): string {
  return subject
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .replace(/^the /, '');
}

/** Answers questions from a knowledge base; also usable without the Tool wrapper (`answer`). */
export class QA implements ToolRunner {
  /** relation → subject key → first fact (the builder writes the preferred source first). */
  private readonly exact = new Map<Relation, Map<string, Fact>>();
  private fuzzyIndex: MiniSearch<{ id: number; key: string }> | null = null;
  private readonly keys: string[] = [];

  constructor(private readonly kb: KnowledgeBase) {
    for (const fact of kb.facts) {
      const key = subjectKey(fact.subject);
      if (key === '') continue;
      let byKey = this.exact.get(fact.relation);
      if (!byKey) this.exact.set(fact.relation, (byKey = new Map()));
      if (!byKey.has(key)) byKey.set(key, fact);
    }
  }

  get size(): number {
    return this.kb.facts.length;
  }

  /** Subjects (as written in the KB) with a fact for `relation`: lets a proposer spot askable entities in text. */
  subjects(relation: Relation): string[] {
    return [...(this.exact.get(relation)?.values() ?? [])].map((fact) => fact.subject);
  }

  /** Whether `subject` has a fact for `relation` by exact (normalized) match — no fuzzy matching here. */
  has(relation: Relation, subject: string): boolean {
    return this.exact.get(relation)?.has(subjectKey(subject)) ?? false;
  }

  async run(input: string): Promise<ToolResult> {
    const result = this.answer(input);
    return 'error' in result ? { ok: false, error: result.error } : { ok: true, value: result.answer };
  }

  answer(question: string): QAAnswer | { error: string } {
    if (question.length > MAX_QUESTION_LENGTH) return { error: `question longer than ${MAX_QUESTION_LENGTH} characters` };
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(question)) return { error: 'control characters in question' };
    const parsed = parseQuestion(question);
    if (!parsed) return { error: 'question form not understood' };
    const key = subjectKey(parsed.subject);
    if (key === '') return { error: 'empty subject' };
    const byKey = this.exact.get(parsed.relation);
    if (!byKey) return { error: `no answer: no ${parsed.relation} facts` };

    const exact = byKey.get(key);
    if (exact) return { answer: shortAnswer(exact.object), fact: exact, match: 'exact' };

    const fuzzy = this.fuzzyMatch(key, byKey);
    if ('error' in fuzzy) return fuzzy;
    return { answer: shortAnswer(fuzzy.object), fact: fuzzy, match: 'fuzzy' };
  }

  /**
   * Typo-tolerant lookup, for long names only: a subject of at least FUZZY_MIN_LENGTH characters may differ from a
   * known one by one edit ("Pensylvania"). Shorter names are too close to other entities for a fix to be safe —
   * Granada/Grenada, GDR/FDR, Plata/Plato, Vice/Nice are one edit apart and name different things — so they must
   * match exactly. Accepted only when the best candidate has as many words as the query (so "South" never becomes
   * "South Africa") and no other candidate with a different answer scores as well.
   */
  private fuzzyMatch(key: string, byKey: Map<string, Fact>): Fact | { error: string } {
    if (key.replace(/ /g, '').length < FUZZY_MIN_LENGTH) return { error: 'no answer: unknown subject' };
    const index = this.index();
    const words = key.split(' ').length;
    const hits = index
      .search(key, { fuzzy: (term) => (term.length >= FUZZY_MIN_LENGTH ? 1 : 0), prefix: false, combineWith: 'AND' })
      .filter((hit) => byKey.has(hit.key as string) && (hit.key as string).split(' ').length === words);
    if (hits.length === 0) return { error: 'no answer: unknown subject' };
    const best = byKey.get(hits[0].key as string) as Fact;
    // Letters added or cut at the end make another word from the name, not a typo of it: "Australian" is the
    // adjective, and a question about it does not ask about Australia (issue 33: such a call was kept).
    const bestKey = hits[0].key as string;
    if (bestKey.startsWith(key) || key.startsWith(bestKey)) return { error: `no answer: "${key}" is a word made from "${best.subject}", not a typo of it` };
    const rival = hits.find((hit) => hit.score >= hits[0].score * 0.95 && byKey.get(hit.key as string)?.object !== best.object);
    if (rival) return { error: `no answer: ambiguous subject ("${best.subject}" or "${rival.key}")` };
    return best;
  }

  /** Built on first use: exact lookups (the common case) never pay for it. */
  private index(): MiniSearch<{ id: number; key: string }> {
    if (this.fuzzyIndex) return this.fuzzyIndex;
    const unique = new Set<string>();
    for (const byKey of this.exact.values()) for (const key of byKey.keys()) unique.add(key);
    this.keys.push(...unique);
    const index = new MiniSearch<{ id: number; key: string }>({ fields: ['key'], storeFields: ['key'] });
    index.addAll(this.keys.map((key, id) => ({ id, key })));
    this.fuzzyIndex = index;
    return index;
  }
}

/** `createQA(kb)`: the QA tool over a knowledge base (kb.json, parsed). */
export function createQA(kb: KnowledgeBase): QA {
  return new QA(kb);
}
