/**
 * `--device vulkan` for the llama.cpp backend on a software Vulkan driver, each device in its own child process
 * (llama.cpp reads the driver environment once, at start): Mesa's lavapipe runs the GGUF, close to the CPU build but not
 * within 1e-4 (ggml-vulkan's kernels differ from ggml-cpu's: on tiny-llama's first sample document 3.6e-2 nats at most,
 * 1.1e-2 with GGML_VK_DISABLE_F16=1), and `toolformer annotate --device vulkan` there keeps the CPU build's calls and
 * writes its train.jsonl (issue 45's must-show; the whole sample: pipeline/bench/results/gguf-parity.json); chromium's
 * SwiftShader — which llama.cpp cannot use — is refused in one line that says why and what works. lavapipe compiles
 * llama.cpp's shaders at start: minutes on two loaded cores. The driver is the manifest at LAVAPIPE_ICD, passed to the
 * children in VK_ICD_FILENAMES; without it (Debian mesa-vulkan-drivers, .ci/apt-packages) CI fails and a local run
 * skips with one line (testing/system-requirement.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCommand } from '../../commands/convert-command.ts';
import { ROOT, spawnCli } from '../../testing/cli-child.ts';
import { lavapipeMissing, softwareAdapterMissing, withLavapipe, withSoftwareAdapter } from '../../testing/software-adapter.ts';
import { skipUnlessInstalled } from '../../testing/system-requirement.ts';

const noLavapipe = skipUnlessInstalled('llama.cpp --device vulkan on lavapipe', lavapipeMissing());
const noSwiftShader = skipUnlessInstalled('llama.cpp --device vulkan refused on SwiftShader', softwareAdapterMissing());
const work = mkdtempSync(join(tmpdir(), 'llama-vulkan-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let file = '';
beforeAll(async () => {
  file = await convertCommand(join(ROOT, 'models/tiny-llama'), { to: 'gguf', dtype: 'f32', out: join(work, 'tiny-llama.gguf') });
}, 60_000);

const SCRIPT = join(ROOT, 'pipeline/node/model/lm-backends/llama-cpp-score.ts');
async function score(device: string, env: NodeJS.ProcessEnv): Promise<{ code: number; rows: { tokenLogProbs: number[]; probeLogProbs: number[] }[]; stderr: string }> {
  const run = promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT, file, device, '1'], { cwd: ROOT, env, maxBuffer: 64 << 20 });
  const r = await run.then((o) => ({ code: 0, ...o }), (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }));
  return { code: r.code, rows: r.code === 0 ? r.stdout.trim().split('\n').map((l) => JSON.parse(l)) : [], stderr: r.stderr };
}

describe.skipIf(noLavapipe)('--device vulkan on lavapipe', () => {
  it('scores close to the CPU build (tiny-llama f32, one document): log-probs within 0.1 nats', async () => {
    const cpu = await score('cpu', process.env);
    const vulkan = await score('vulkan', withLavapipe());
    expect(cpu.code, cpu.stderr).toBe(0);
    expect(vulkan.code, vulkan.stderr).toBe(0);
    let max = 0;
    cpu.rows.forEach((row, i) => {
      for (const key of ['tokenLogProbs', 'probeLogProbs'] as const) row[key].forEach((x, t) => (max = Math.max(max, Math.abs(x - vulkan.rows[i][key][t]))));
    });
    console.log(`llama.cpp tiny-llama f32, Vulkan (lavapipe) against CPU: max |Δ log p| ${max.toExponential(2)} nats`);
    expect(cpu.rows.length).toBe(1);
    expect(max).toBeGreaterThan(0); // a separate device: not the CPU's numbers by accident
    expect(max).toBeLessThan(0.1);
  }, 600_000);
});

// The sample's Japan document: 98 scored calls, one kept (QA, 1.18 nats above τ_f on ONNX Runtime).
const JAPAN = 'factbook/east-n-southeast-asia/ja/introduction/0';

describe.skipIf(noLavapipe)('toolformer annotate --device vulkan on lavapipe', () => {
  it("keeps the CPU build's calls and writes its train.jsonl (models/default f32 GGUF, one sample document)", async () => {
    const corpus = join(work, 'japan.jsonl');
    writeFileSync(corpus, readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').split('\n').filter((l) => l.includes(`"${JAPAN}"`)).join('\n') + '\n');
    const gguf = await convertCommand(join(ROOT, 'models/default'), { to: 'gguf', dtype: 'f32', out: join(work, 'default.gguf') });
    // One core each (taskset): llama.cpp's threads follow the affinity, and its spinning thread pool is many times
    // slower with two threads than one on a loaded machine (pipeline/bench/gguf-parity.ts); the numbers do not change.
    const annotate = (device: string, env?: NodeJS.ProcessEnv) =>
      spawnCli(['annotate', corpus, '--model', gguf, '--device', device, '--out', join(work, device), '--quiet'], ROOT, env, { wrapper: ['taskset', '-c', '0'] }).done;
    const cpu = await annotate('cpu');
    expect(cpu.code, cpu.stderr).toBe(0);
    const vulkan = await annotate('vulkan', withLavapipe());
    expect(vulkan.code, vulkan.stderr).toBe(0);
    const calls = (device: string) => readFileSync(join(work, device, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const identity = (c: { at: number; tool: string; input: string; result?: string }) => `${c.at} ${c.tool}(${c.input}) → ${c.result}`;
    const [onCpu, onVulkan] = [calls('cpu'), calls('vulkan')];
    const kept = (rows: typeof onCpu) => rows.filter((c) => c.kept).map(identity);
    expect(kept(onCpu).length).toBeGreaterThan(0);
    expect(kept(onVulkan)).toEqual(kept(onCpu));
    // The finetuning data: text, inlined calls and results (train.jsonl also records each call's losses, which differ).
    const train = (device: string) => readFileSync(join(work, device, 'train.jsonl'), 'utf8').trim().split('\n').map((l) => {
      const row = JSON.parse(l);
      return { ...row, calls: row.calls.map(({ losses: _l, usefulness: _u, ...call }: Record<string, unknown>) => call) };
    });
    expect(train('vulkan')).toEqual(train('cpu'));
    expect(train('cpu').length).toBe(1);
    const byIdentity = new Map(onCpu.map((c) => [identity(c), c]));
    let [max, paired] = [0, 0];
    for (const v of onVulkan) {
      const c = byIdentity.get(identity(v));
      if (!c) continue;
      paired++;
      for (const k of ['noCall', 'callOnly', 'withResult']) if (c.losses?.[k] !== undefined && v.losses?.[k] !== undefined) max = Math.max(max, Math.abs(c.losses[k] - v.losses[k]));
    }
    console.log(`annotate --device vulkan (lavapipe) against cpu: ${paired} of ${onCpu.length} calls paired, max |Δ| of a loss ${max.toFixed(4)} nats; kept ${kept(onCpu).length}, identical`);
    expect(paired).toBeGreaterThan(onCpu.length / 2);
    expect(max).toBeGreaterThan(0); // lavapipe's kernels, not the CPU's numbers by accident
  }, 900_000);
});

describe.skipIf(noSwiftShader)('--device vulkan where llama.cpp cannot use the driver', () => {
  it('SwiftShader: one line naming the reason and the driver that works, exit 1', async () => {
    const { GGML_VK_VISIBLE_DEVICES: _, ...env } = withSoftwareAdapter();
    const r = await score('vulkan', env);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n').filter((l) => l.startsWith('toolformer:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^toolformer: --device vulkan: llama\.cpp found no vulkan device \(.*GGML_VK_VISIBLE_DEVICES=0.*SwiftShader lacks the 16-bit storage.*mesa-vulkan-drivers/);
  }, 300_000);
});
