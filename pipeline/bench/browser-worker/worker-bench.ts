/**
 * The bench build's worker extras (in place of web/src/worker-extras.ts, see there; swapped in by ../bench-build.ts):
 * scoring throughput on the bench rows (`bench`: CausalLM.score tokens/s and the raw forward limit of the same session
 * options; `benchScore`: timed lm.score calls on the bench rows or the rows sent). Used by ../web.ts and
 * ../real-size-browser.ts. It runs in the app's model worker; the app itself never imports it.
 */
import type { BenchResult } from '../../../web/src/analysis-types.ts';
import { sessionOptions } from '../../../web/src/ort-web.ts';
import type { Request } from '../../../web/src/protocol.ts';
import type { ExtraRequests, LoadedModel } from '../../../web/src/worker-extras.ts';
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
