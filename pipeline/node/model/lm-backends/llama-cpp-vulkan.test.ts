/**
 * `--device vulkan` for the llama.cpp backend on a software Vulkan driver, each device in its own child process
 * (llama.cpp reads the driver environment once, at start): Mesa's lavapipe runs the GGUF, close to the CPU build but not
 * within 1e-4 (ggml-vulkan's kernels differ from ggml-cpu's: on tiny-llama's first sample document 3.6e-2 nats at most,
 * 1.1e-2 with GGML_VK_DISABLE_F16=1), and chromium's SwiftShader — which llama.cpp cannot use — is refused in one line that says
 * why and what works. lavapipe compiles llama.cpp's shaders at start: minutes on two loaded cores.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCommand } from '../../commands/convert-command.ts';
import { ROOT } from '../../testing/cli-child.ts';
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
