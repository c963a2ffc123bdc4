/**
 * The bench build's worker extras (in place of ../worker-extras.ts, see there): scoring throughput on the bench rows
 * (`bench`: CausalLM.score tokens/s and the raw forward limit of the same session options; `benchScore`: timed
 * lm.score calls on the bench rows or the rows sent). Used by web/bench.ts and pipeline/bench/real-size-browser.ts.
 */
import type { BenchResult } from '../analysis-types.ts';
import { sessionOptions } from '../ort-web.ts';
import type { Request } from '../protocol.ts';
import type { ExtraRequests, LoadedModel } from '../worker-extras.ts';
import { benchRows, scoreThroughput, scoreTimes } from './bench-rows.ts';
import { rawForwardThroughput } from './raw-forward.ts';

/** Scoring throughput (CausalLM.score on [batch × length] teacher-forced rows) and the raw forward limit. */
async function bench(req: Extract<Request, { type: 'bench' }>, loaded: LoadedModel): Promise<BenchResult> {
  const { lm, ort, choice, source, file, externalData } = loaded;
  const onnx = await source.onnx(file, externalData);
  const scoreTps = await scoreThroughput(lm, benchRows(lm, req.batch, req.length), req.repeats);
  const session = await ort.InferenceSession.create(onnx.model, { ...sessionOptions(choice.backend), ...onnx.sessionOptions });
  const forwardTps = await rawForwardThroughput(ort, session, req.batch, req.length, req.repeats);
  await session.release();
  return {
    backend: choice.backend,
    scoreTokensPerSecond: scoreTps,
    forwardTokensPerSecond: forwardTps,
    batch: req.batch,
    length: req.length,
    repeats: req.repeats,
  };
}

async function benchScore(req: Extract<Request, { type: 'benchScore' }>, loaded: LoadedModel) {
  const rows = req.rows ?? benchRows(loaded.lm, req.batch, req.length);
  const seconds = await scoreTimes(loaded.lm, rows, req.repeats);
  return { seconds, tokens: rows.reduce((s, r) => s + r.ids.length, 0), threads: loaded.choice.threads };
}

export const EXTRA_REQUESTS: ExtraRequests = { bench, benchScore };
