import type { AnnotateConfig } from '../../core/config.ts';
import type { ProbeOutcome, RunFlags } from '../../core/run-plan.ts';
import { lmContextNotice } from '../../core/sampling/lm-context.ts';
import { probeNotices } from '../../core/sampling/sampling-gate.ts';
import type { PipelineParts } from '../../core/stages/work.ts';

/**
 * The probes before a run (what `npm start` does before its first document; the real-size bench times the same
 * call): the bare-text probe decides `--lm-context auto` (with `bare` forced it is still run and recorded: does the
 * model write calls?); with the prompt context, the sampling probe decides the sampling gate. Returns their verdicts
 * for the run plan (core/run-plan.ts withVerdicts); `config` is not changed. annotate takes them through the
 * verdict cache (probe-cache.ts cachedProbes).
 */
export async function computeProbes(parts: PipelineParts, config: AnnotateConfig, lmContext: RunFlags['lmContext']): Promise<ProbeOutcome> {
  const [{ probeBare, probeSampling }, { chooseLmContext }] = await Promise.all([
    import('../../core/stages/sampling-probe.ts'),
    import('../../core/sampling/lm-context.ts'),
  ]);
  const verdicts: ProbeOutcome = { lmContext: config.lmContext };
  if (lmContext !== 'prompt' && config.lmProposals) {
    verdicts.bareProbe = await probeBare(parts, config);
    if ((lmContext ?? 'auto') === 'auto') verdicts.lmContext = chooseLmContext(verdicts.bareProbe);
  }
  if (verdicts.lmContext === 'prompt' && config.samplingGate && config.lmProposals) {
    // Sampled under the context the bare-text probe chose (prompt, here).
    verdicts.samplingProbe = await probeSampling(parts, { ...config, lmContext: verdicts.lmContext });
  }
  return verdicts;
}

/** The verdicts' one-line summaries: the LM context the bare-text probe chose, the tools the sampling probe turned off. */
export function probeLines(verdicts: ProbeOutcome, config: AnnotateConfig): string[] {
  return [
    ...(verdicts.bareProbe ? [lmContextNotice(verdicts.lmContext, verdicts.bareProbe)] : []),
    ...(verdicts.samplingProbe ? probeNotices(verdicts.samplingProbe, config.samplingGate) : []),
  ];
}

/** computeProbes, with `notice` given each summary line (the benches, which always run the probes). */
export async function runProbes(parts: PipelineParts, config: AnnotateConfig, lmContext: RunFlags['lmContext'], notice: (line: string) => void): Promise<ProbeOutcome> {
  const verdicts = await computeProbes(parts, config, lmContext);
  for (const line of probeLines(verdicts, config)) notice(line);
  return verdicts;
}
