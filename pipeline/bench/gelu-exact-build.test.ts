/**
 * The exact-GELU llama.cpp build (`npx toolformer build-llama --gelu exact`, lm-backends/llama-gelu.ts), made and used.
 * Where node-llama-cpp's llama/localBuilds holds none (CI: a fresh `npm ci`) the test builds it through the CLI —
 * minutes of CPU (results/gguf-parity.json, geluExactBuild.build, has what it took here) — and later runs reuse it.
 * Then GPT-2 (models/default's f32 GGUF) on the sample's first documents: every token and " [" log-prob within 1e-4
 * nats of ONNX Runtime through it, while node-llama-cpp's prebuilt table build is off by more than 1e-3.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertCommand } from '../node/commands/convert-command.ts';
import { checkDefineReachedGgmlCpu, exactGeluBuildFolder } from '../node/model/lm-backends/llama-gelu-build.ts';
import { GELU_EXACT_DEFINE } from '../node/model/lm-backends/llama-gelu.ts';
import { openLM } from '../node/model/lm-backends/registry.ts';
import { DEFAULT_MODEL, PACKAGE_ROOT } from '../node/system/package-paths.ts';
import { spawnCli } from '../node/testing/cli-child.ts';
import { TEST_CAP_MS } from '../node/testing/progress.ts';
import { skipUnlessInstalled } from '../node/testing/system-requirement.ts';
import { exactBuildEvidence } from './gelu-table.ts';

const work = mkdtempSync(join(tmpdir(), 'gelu-exact-build-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** What compiling llama.cpp needs (.ci/apt-packages lists them), or null. */
function missingBuildTools(): string | null {
  const has = (program: string) => {
    try {
      execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  const missing = [['cmake'], ['c++'], ['ninja', 'make']].filter((any) => !any.some(has)).map((any) => any.join(' or '));
  return missing.length > 0 ? `${missing.join(', ')} not installed` : null;
}

const GROUP = 'the exact-GELU llama.cpp build';
const builtBefore = exactGeluBuildFolder();
const noTools = builtBefore ? false : skipUnlessInstalled(GROUP, missingBuildTools());

describe.skipIf(noTools)(GROUP, () => {
  it('npx toolformer build-llama --gelu exact makes it when node-llama-cpp has none, else says it is built; the definition reached ggml-cpu', async () => {
    const r = await spawnCli(['build-llama', '--gelu', 'exact'], PACKAGE_ROOT).done;
    expect(r.code, r.stderr.slice(-2000)).toBe(0);
    expect(r.stdout).toMatch(builtBefore ? `the exact-GELU llama.cpp (CPU) is built already: ${builtBefore} (--rebuild builds it again)\n` : /^built the exact-GELU llama\.cpp \(CPU\) in \d+ s: /);
    const folder = exactGeluBuildFolder();
    expect(folder).not.toBeNull();
    expect(r.stdout).toContain(`-D${GELU_EXACT_DEFINE} reached ggml-cpu's compile (${join(folder!, 'compile_commands.json')})`);
    expect(checkDefineReachedGgmlCpu(folder!)).toMatch(/compile_commands\.json$/);
  }, TEST_CAP_MS);

  it('GPT-2 through it: within 1e-4 nats of ONNX Runtime on the first sample documents; through the table build, not', async () => {
    const gguf = await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype: 'f32', out: join(work, 'default-f32.gguf') });
    const open = (model: string, exact: boolean) => openLM(model, { threads: 1, ...(exact ? { llamaGelu: 'exact' as const } : {}) });
    const e = await exactBuildEvidence(join(PACKAGE_ROOT, 'corpus/sample.jsonl'), DEFAULT_MODEL, gguf, open, 4);
    console.log(`exact-GELU build, 4 sample documents: ${JSON.stringify(e)}`);
    expect(e.ortVsExactBuild.tokensOver1e4).toBe(0);
    expect(e.ortVsExactBuild.maxAbsDelta).toBeLessThan(1e-4);
    expect(e.exactBuildVsTableBuild.maxAbsDelta).toBeGreaterThan(1e-3);
  }, TEST_CAP_MS);
});
