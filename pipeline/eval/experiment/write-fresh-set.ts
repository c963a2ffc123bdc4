/**
 * `npx tsx pipeline/eval/experiment/write-fresh-set.ts`: writes the fresh in-format set (fresh-set.ts) and its
 * pretraining exposure next to this file — deterministic (same corpus, KB, held-out list and tokenizer → same bytes).
 * `--check` exits 1 when the committed files differ from what it would write (nothing is written then).
 *
 * Exposure: per prompt, whether its source section is in the pretraining text and how many pretraining documents
 * hold its subject with an answer; per base, the natural-text passes a base's pretraining made over that text
 * (natural rows drawn × 129 tokens / the text's tokens: a lower bound, the tool and restate rows carry corpus text too).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corpus, encoder, FRESH_EXPOSURE_FILE, FRESH_FILE, heldOut, readKb, ROOT } from './corpus-files.ts';
import { freshInFormatPrompts, inPretrainingText, pretrainingExposure } from './fresh-set.ts';

/** A base's committed trainer record (the fields read here). */
interface BaseRecord { step: number; rowsDrawn?: { natural: number } }

function main(): void {
  const check = process.argv.includes('--check');
  const encode = encoder();
  const prompts = freshInFormatPrompts({ kb: readKb(), heldOut: heldOut(), factbook: corpus.factbook(), encode });
  const docs = [...corpus.sotu(), ...corpus.factbook()];
  const perPrompt = pretrainingExposure(prompts, docs);
  const pretrainingTokens = docs.filter(inPretrainingText).reduce((n, d) => n + encode(d.text).length + 1, 0);
  const relations = [...new Set(perPrompt.map((e) => e.relation))];
  const count = (xs: typeof perPrompt) => ({ prompts: xs.length, sourceInPretraining: xs.filter((e) => e.sourceInPretraining).length,
    answerWithSubjectInPretraining: xs.filter((e) => e.answerDocs > 0).length });
  const bases: Record<string, string> = { '1x (models/default)': 'models/default/train-record.json', '10x seed 1 (base-pt10x)': 'pipeline/eval/experiment/results/base-pt10x/train-record.json' };
  const passes = Object.fromEntries(Object.entries(bases).flatMap(([name, file]) => {
    const path = join(ROOT, file);
    if (!existsSync(path)) return [];
    const rec = JSON.parse(readFileSync(path, 'utf8')) as BaseRecord;
    return rec.rowsDrawn ? [[name, { steps: rec.step, naturalRows: rec.rowsDrawn.natural, naturalPasses: Number(((rec.rowsDrawn.natural * 129) / pretrainingTokens).toFixed(2)) }]] : [];
  }));
  const exposure = {
    note: 'Pretraining exposure of fresh-in-format.jsonl (write-fresh-set.ts). Every base is pretrained on corpus/sotu.jsonl + corpus/factbook.jsonl minus 1 document in 50 (train/data.ts splitDocs); naturalPasses = natural rows drawn × 129 tokens / the pretraining text\'s tokens (a lower bound: tool and restate rows carry corpus text too).',
    pretrainingTokens, total: count(perPrompt),
    byRelation: Object.fromEntries(relations.map((r) => [r, count(perPrompt.filter((e) => e.relation === r))])),
    bases: passes, perPrompt,
  };
  const files: [string, string][] = [
    [FRESH_FILE, prompts.map((p) => JSON.stringify(p)).join('\n') + '\n'],
    [FRESH_EXPOSURE_FILE, JSON.stringify(exposure, null, 2) + '\n'],
  ];
  if (check) {
    const stale = files.filter(([f, text]) => !existsSync(f) || readFileSync(f, 'utf8') !== text).map(([f]) => f);
    if (stale.length) {
      console.error(`write-fresh-set --check: ${stale.join(', ')} differ from what the generator writes`);
      process.exit(1);
    }
    return;
  }
  for (const [f, text] of files) writeFileSync(f, text);
  console.log(`${prompts.length} prompts (${relations.map((r) => `${r} ${exposure.byRelation[r].prompts}`).join(', ')}); exposure: ${JSON.stringify(exposure.total)}; passes ${JSON.stringify(passes)}`);
}

main();
