/**
 * Overlap between the eval set and every finetuning text (issue 20 item 1), as numbers:
 *   prompts    eval prompts found verbatim in a finetuning text (tasks.ts overlap)
 *   phrasings  per template phrasing, the finetuning texts in which the template occurs with any subject
 *              (real-format phrasings are the corpus's own format by design and are counted the same way)
 *   subjects   fact prompts whose subject (country, state, element) is named in a finetuning text, and in how many
 *   facts      fact prompts whose subject and answer occur together in one finetuning text (the fact was seen)
 * "Finetuning texts" = every arm's records (with and without their calls), the base-mixture corpus, and the fact
 * statements of the synthetic base-mixture rows (data-synthetic.ts, train split).
 */
import type { EvalPrompt } from '../tasks.ts';
import { overlap } from '../tasks.ts';
import type { Phrasing } from './eval-sets.ts';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A template ("{S}'s capital city is", "{a} crates holding {b} bottles each make") as a regex with its slots open. */
export function phrasingRegex(template: string): RegExp {
  const parts = template.split(/\{[a-zA-Z]+\}/);
  return new RegExp(parts.map(escape).join('[\\p{L}\\p{N}][^\\n]{0,40}?'), 'u');
}

const wordRe = (s: string) => new RegExp(`(^|[^\\p{L}])${escape(s)}($|[^\\p{L}])`, 'u');

export interface OverlapReport {
  texts: number;
  prompts: { n: number; ids: string[] };
  phrasings: { family: string; name: string; real: boolean; texts: number; example?: string }[];
  subjects: { prompts: number; of: number; subjects: number; ofSubjects: number; examples: { subject: string; texts: number }[] };
  facts: { prompts: number; of: number; ids: string[]; examples: { subject: string; answer: string; text: string }[] };
}

export function overlapReport(prompts: readonly EvalPrompt[], phrasings: readonly Phrasing[], texts: readonly string[]): OverlapReport {
  const verbatim = overlap(prompts, texts);
  const phr = phrasings.map((p) => {
    if (!p.template) return { family: p.family, name: p.name, real: p.real, texts: -1 };
    const re = phrasingRegex(p.template);
    const hits = texts.filter((t) => re.test(t));
    return { family: p.family, name: p.name, real: p.real, texts: hits.length, example: hits[0] ? re.exec(hits[0])![0] : undefined };
  });
  const factPrompts = prompts.filter((p) => p.subject && p.answers.length > 0);
  const subjects = [...new Set(factPrompts.map((p) => p.subject!))];
  const textsNaming = new Map<string, string[]>();
  for (const s of subjects) {
    const re = wordRe(s);
    textsNaming.set(s, texts.filter((t) => t.includes(s) && re.test(t)));
  }
  const named = subjects.filter((s) => textsNaming.get(s)!.length > 0);
  const factHits: { p: EvalPrompt; text: string; answer: string }[] = [];
  for (const p of factPrompts) {
    for (const a of p.answers) {
      const re = wordRe(a);
      const t = textsNaming.get(p.subject!)!.find((x) => x.includes(a) && re.test(x));
      if (t) {
        factHits.push({ p, text: t, answer: a });
        break;
      }
    }
  }
  const snippet = (t: string, a: string) => {
    const i = t.indexOf(a);
    return t.slice(Math.max(0, i - 80), i + a.length + 20).replace(/\s+/g, ' ');
  };
  return {
    texts: texts.length,
    prompts: { n: verbatim.length, ids: verbatim.map((v) => v.id) },
    phrasings: phr,
    subjects: {
      prompts: factPrompts.filter((p) => textsNaming.get(p.subject!)!.length > 0).length, of: factPrompts.length,
      subjects: named.length, ofSubjects: subjects.length,
      examples: named.map((s) => ({ subject: s, texts: textsNaming.get(s)!.length })).sort((a, b) => b.texts - a.texts).slice(0, 12),
    },
    facts: {
      prompts: factHits.length, of: factPrompts.length, ids: factHits.map((h) => h.p.id),
      examples: factHits.filter((h, i) => factHits.findIndex((x) => x.p.subject === h.p.subject) === i).slice(0, 8)
        .map((h) => ({ subject: h.p.subject!, answer: h.answer, text: snippet(h.text, h.answer) })),
    },
  };
}

/**
 * The overlap as one sentence, for every text that describes the eval set (the shipped model's card, READMEs): the
 * numbers come from the committed report, never typed by hand (claims.test.ts checks the texts against it).
 */
export function describeOverlap(o: OverlapReport): string {
  const templates = o.phrasings.filter((p) => !p.real && p.texts >= 0);
  const templateTexts = templates.reduce((a, p) => a + p.texts, 0);
  return `${o.prompts.n} of the prompts verbatim in any of the ${o.texts.toLocaleString('en-US')} finetuning texts, ` +
    `${templateTexts === 0 ? 'no' : templateTexts} finetuning text${templateTexts === 1 ? '' : 's'} in a template phrasing; ` +
    `${o.subjects.subjects} of ${o.subjects.ofSubjects} subjects are named in some finetuning text and ` +
    `${o.facts.prompts} of ${o.facts.of} fact prompts have subject and answer together in one`;
}

/**
 * Overlap of the eval set with the base model's pretraining text (issue 31): models/default was pretrained on the
 * corpus's train split (pipeline/train/data.ts splitDocs), so a real-format prompt whose source document is in that
 * split was seen in pretraining, answer line included; a fact prompt is "seen" when its subject and an answer occur
 * together in one pretraining document. Counted per family; `sources` lists the real-format prompts' documents.
 */
export interface PretrainingOverlap {
  documents: number;
  families: { family: string; realPrompts: number; realSourcesInPretraining: number; factPrompts: number; factsSeen: number }[];
}

export function pretrainingOverlap(prompts: readonly EvalPrompt[], pretrainingDocs: readonly { id: string; text: string }[]): PretrainingOverlap {
  const byId = new Map(pretrainingDocs.map((d) => [d.id, d.text]));
  const families = [...new Set(prompts.map((p) => p.family))];
  const seenFact = (p: EvalPrompt): boolean => {
    const re = wordRe(p.subject!);
    const answers = p.answers.map((a) => ({ a, re: wordRe(a) }));
    return pretrainingDocs.some((d) => d.text.includes(p.subject!) && re.test(d.text) && answers.some(({ a, re: ra }) => d.text.includes(a) && ra.test(d.text)));
  };
  return {
    documents: pretrainingDocs.length,
    families: families.map((family) => {
      const sel = prompts.filter((p) => p.family === family);
      const real = sel.filter((p) => p.real && p.source);
      const facts = sel.filter((p) => p.subject && p.answers.length > 0);
      return {
        family,
        realPrompts: real.length,
        realSourcesInPretraining: real.filter((p) => byId.has(p.source!)).length,
        factPrompts: facts.length,
        factsSeen: facts.filter(seenFact).length,
      };
    }),
  };
}
