/**
 * `toolformer retrieve` as a user runs it: the ranking of the run's tools for a text, as JSON (names, scores, the
 * retriever), the same in two runs; bad flags are one line.
 */
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from './testing/cli-child.ts';
import { TEST_CAP_MS } from './testing/progress.ts';

const QUESTION = 'What is the determinant of the matrix [1, 2; 3, 4]?';
/** A fused retrieve trains the dense projection in its process: ~13–16 CPU s each, three CLI runs in the first test,
 *  so the file's 60 s default fails at load 8 on 2 cores; 10 min is the limit of minutes the README states. */
const CHILD_RUNS_MS = 600_000;

describe('toolformer retrieve', { timeout: TEST_CAP_MS }, () => {
  it('--json: the top tools of the catalog with scores; the dense and fused rankings are deterministic', async () => {
    const bm25 = await runCli(['retrieve', QUESTION, '--catalog', 'mathjs', '--tools', '', '--top', '3', '--retriever', 'bm25', '--json'], ROOT);
    expect(bm25.code, bm25.stderr).toBe(0);
    const out = JSON.parse(bm25.stdout) as { retriever: string; tools: number; ranking: { name: string; score: number }[] };
    expect(out.retriever).toBe('bm25');
    expect(out.tools).toBe(215);
    expect(out.ranking).toHaveLength(3);
    expect(out.ranking[0].name).toBe('det');
    const fused = [await runCli(['retrieve', QUESTION, '--catalog', 'mathjs', '--json'], ROOT), await runCli(['retrieve', QUESTION, '--catalog', 'mathjs', '--json'], ROOT)];
    for (const run of fused) expect(run.code, run.stderr).toBe(0);
    expect(fused[0].stdout).toBe(fused[1].stdout);
    const ranking = JSON.parse(fused[0].stdout) as { retriever: string; tools: number; ranking: { name: string }[] };
    expect(ranking).toMatchObject({ retriever: 'fusion', tools: 219 });
    expect(ranking.ranking).toHaveLength(5);
    expect(ranking.ranking.map((r) => r.name)).toContain('det');
  }, CHILD_RUNS_MS);

  it('bad input is one line', async () => {
    const unknown = await runCli(['retrieve', 'x', '--catalog', 'numpy'], ROOT);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim()).toBe('toolformer: --catalog: unknown catalog "numpy" (known: mathjs)');
    const empty = await runCli(['retrieve', '  ', '--catalog', 'mathjs'], ROOT);
    expect(empty.stderr.trim()).toBe('toolformer: retrieve: the text is empty');
  }, CHILD_RUNS_MS);
});
