/**
 * What `toolformer toolkens train`'s numbers mean, said from the training at hand (issue 49 item 9): recall is a share
 * of the held-out calls, and on a small run those are a handful (npm start's 10 documents hold out one record), so
 * "recall 0.0 %" every epoch can be 0 of 1 — no measurement at all, not a verdict on the model. The lines give the
 * count, its 95 % Wilson interval, and say when the interval is too wide to tell anything.
 */
import type { TrainedToolkens } from '../../core/toolkens/train.ts';
import { wilson } from '../../eval/metrics.ts';

/** A recall interval wider than this (a share, 0–1) tells too little: more calls are needed. */
const TOO_WIDE = 0.3;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

/** The lines printed after training, from its positions and the kept epoch (the last one when it kept W_τ's start). */
export function toolkenNumbersMeaning(trained: Pick<TrainedToolkens, 'positions' | 'history' | 'bestEpoch'>): string[] {
  const { positions, history, bestEpoch } = trained;
  const words = positions.val - positions.valToolken;
  const loss = 'train/val loss: nats per position over words and calls together, mostly the frozen model\'s own word loss (only W_τ trains), so only its fall is the toolkens\'';
  const more = `train on more calls (a larger annotate run; the experiment's kept calls: models/toolformer/finetune-data/a.jsonl)`;
  if (positions.valToolken === 0) {
    return [`toolkens: no call was held out (${plural(positions.val, 'held-out position')}): recall says nothing here; ${loss}.`,
      `toolkens: ${plural(positions.trainToolken, 'call')} to learn from: ${more}`];
  }
  const epoch = history.find((e) => e.epoch === bestEpoch) ?? history.at(-1);
  const n = positions.valToolken;
  const k = Math.round((epoch?.valToolkenRecall ?? 0) * n);
  const [lo, hi] = wilson(k, n);
  const lines = [
    `toolkens: recall is the share of the ${plural(n, 'held-out call')} whose toolken beats every word at its position: ${k} of ${n} ` +
      `at ${epoch ? `epoch ${epoch.epoch}${epoch.epoch === bestEpoch ? ', the kept one' : ''}` : 'the start'} (95 % interval ${pct(lo)}–${pct(hi)}); ` +
      `false fire is the share of the ${plural(words, 'held-out word position')} where a toolken wins instead; ${loss}.`,
  ];
  if (hi - lo > TOO_WIDE) {
    lines.push(`toolkens: ${plural(positions.trainToolken, 'call')} to learn from and ${n} held out are too few for recall to tell much: ${more}`);
  }
  return lines;
}
