import type { AnnotateConfig } from '../core/config.ts';
import type { ProbeOutcome, RunFlags } from '../core/run-plan.ts';
import type { PipelineParts } from '../core/stages/work.ts';

/**
 * The probes before a run (what `npm start` does before its first document; the real-size bench times the same
 * call): the bare-text probe decides `--lm-context auto` (with `bare` forced it is still run and recorded: does the
 * model write calls?); with the prompt context, the sampling probe decides the sampling gate. Returns their verdicts
 * for the run plan (core/run-plan.ts withVerdicts); `config` is not changed. `notice` gets their one-line summaries.
 */
export async function runProbes(parts: PipelineParts, config: AnnotateConfig, lmContext: RunFlags['lmContext'], notice: (line: string) => void): Promise<ProbeOutcome> {
  const [{ probeBare, probeSampling }, { probeNotices }, { chooseLmContext, lmContextNotice }] = await Promise.all([
    import('../core/stages/sampling-probe.ts'),
    import('../core/sampling/sampling-gate.ts'),
    import('../core/sampling/lm-context.ts'),
  ]);
  const verdicts: ProbeOutcome = { lmContext: config.lmContext };
  if (lmContext !== 'prompt' && config.lmProposals) {
    verdicts.bareProbe = await probeBare(parts, config);
    if ((lmContext ?? 'auto') === 'auto') verdicts.lmContext = chooseLmContext(verdicts.bareProbe);
    notice(lmContextNotice(verdicts.lmContext, verdicts.bareProbe));
  }
  if (verdicts.lmContext === 'prompt' && config.samplingGate && config.lmProposals) {
    // Sampled under the context the bare-text probe chose (prompt, here).
    verdicts.samplingProbe = await probeSampling(parts, { ...config, lmContext: verdicts.lmContext });
    for (const line of probeNotices(verdicts.samplingProbe, config.samplingGate)) notice(line);
  }
  return verdicts;
}
