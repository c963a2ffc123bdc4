import { SingleBar } from 'cli-progress';
import type { AnnotateConfig } from '../../core/config.ts';
import type { RunStats } from '../../core/stats.ts';
import { runFilesLines, runSummary, searchBudgetLine } from './run-summary.ts';

/** A progress bar on a terminal, a line every 10 s otherwise, nothing with --quiet. */
export function startProgress(total: number, quiet?: boolean) {
  const bar = quiet || !process.stderr.isTTY ? null : new SingleBar({
    format: 'annotate |{bar}| {value}/{total} docs | kept {kept} | ETA {eta_formatted}',
    hideCursor: true,
  });
  bar?.start(total, 0, { kept: 0 });
  let lastLog = 0;
  return {
    update(docs: number, kept: number) {
      if (bar) bar.update(docs, { kept });
      else if (!quiet && performance.now() - lastLog > 10_000) {
        lastLog = performance.now();
        console.error(`annotate: ${docs}${total ? '/' + total : ''} docs, ${kept} kept calls`);
      }
    },
    stop: () => bar?.stop(),
  };
}

export function printSummary(stats: RunStats, out: string, seconds: number, config: Pick<AnnotateConfig, 'maxDocTokens'>): void {
  console.log(['', ...runSummary(stats, seconds), ...runFilesLines(out, stats)].join('\n'));
  // A warning, once per run: the documents whose search was cut (stats.json has the same).
  const cut = searchBudgetLine(stats, config.maxDocTokens);
  if (cut) console.error(cut);
}
