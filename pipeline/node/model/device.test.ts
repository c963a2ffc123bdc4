/**
 * `--device` (node/model/device.ts): on the WebGPU provider the pipeline computes what it computes on the CPU — the same
 * L_a, L_b, L_c lines from `toolformer score` within 1e-4 on the worked cases, and the same kept calls from a
 * 5-document annotate — and a device that cannot start is one line naming what is missing and the fix.
 *
 * WebGPU runs on the software adapter (testing/software-adapter.ts: libvulkan1 + chromium's SwiftShader driver, which
 * CI installs from .ci/apt-packages), set for the child processes only. SwiftShader emulates a GPU on the CPU and is
 * slow: the runs are small, and each is bounded by the suite's per-test limit only (no tight wall-clock checks).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Doc } from '../../core/document.ts';
import { CUDA_INSTALL_COMMAND, assertDeviceInstalled, deviceFailure } from './device.ts';
import { ROOT, runCli } from '../testing/cli-child.ts';
import { softwareAdapterMissing, withSoftwareAdapter } from '../testing/software-adapter.ts';
import { skipUnlessInstalled } from '../testing/system-requirement.ts';

const noAdapter = skipUnlessInstalled('--device webgpu on the software adapter', softwareAdapterMissing());
const work = mkdtempSync(join(tmpdir(), 'device-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sample: Doc[] = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));

/** The worked cases: the README's (the longest call npm start keeps) and a Calculator call before its own result. */
const CASES = [
  { text: sample.find((d) => d.id === 'factbook/south-asia/in/people-and-society/0')!.text, call: 'QA("What language is spoken in India?")', at: 161 },
  (() => {
    const text = 'Area: total: 9,826,675 sq km; land: 9,161,966 sq km; water: 664,709 sq km; note: includes only the 50 states.';
    return { text, call: 'Calculator(9826675 - 9161966)', at: text.indexOf(' 664,709') };
  })(),
];

/** L_a, L_b, L_c as `toolformer score` prints them ("L_a noCall     = 5.8210"). */
function losses(stdout: string): number[] {
  const lines = ['noCall', 'callOnly', 'withResult'].map((name) => new RegExp(`^L_\\w ${name}\\s+= (-?\\d+\\.\\d+)$`, 'm').exec(stdout));
  expect(lines.every(Boolean), stdout).toBe(true);
  return lines.map((m) => Number(m![1]));
}

async function score(c: (typeof CASES)[number], device: string): Promise<number[]> {
  const r = await runCli(['score', c.text, '--call', c.call, '--at', String(c.at), '--device', device], ROOT, withSoftwareAdapter());
  expect(r.code, r.stderr).toBe(0);
  return losses(r.stdout);
}

describe.skipIf(noAdapter)('--device webgpu (software adapter) computes what the CPU computes', () => {
  it.each(CASES.map((c, i) => [i, c] as const))('toolformer score, worked case %i: the same L_a, L_b, L_c lines within 1e-4', async (_i, c) => {
    const [cpu, webgpu] = [await score(c, 'cpu'), await score(c, 'webgpu')];
    webgpu.forEach((x, j) => expect(Math.abs(x - cpu[j]), `L ${j}: cpu ${cpu[j]}, webgpu ${x}`).toBeLessThanOrEqual(1e-4));
  }, 600_000);

  it('a 5-document annotate keeps the same calls, and config.json records the device', async () => {
    // Excerpts of sample documents around calls npm start keeps (short: SwiftShader is slow), searched with the
    // programmatic proposers at heuristic positions (no LM sampling, so no probes; k 0: no p_i positions).
    const anchors = ['water: 664,709', 'Capital: name: Canberra', 'July 1, 1888', 'Anthem of Chile', 'Languages: Hindi 41%'];
    const excerpts = anchors.map((anchor) => {
      const doc = sample.find((d) => d.text.includes(anchor))!;
      const i = doc.text.indexOf(anchor);
      const from = i < 120 ? 0 : doc.text.indexOf(' ', i - 120) + 1;
      return JSON.stringify({ ...doc, id: `${doc.id}#excerpt`, text: doc.text.slice(from, doc.text.lastIndexOf(' ', i + anchor.length + 40)) });
    });
    const input = join(work, 'five.jsonl');
    writeFileSync(input, excerpts.join('\n') + '\n');
    const kept = async (device: string) => {
      const out = join(work, `annotate-${device}`);
      const args = ['annotate', input, '--no-lm-proposals', '--k', '0', '--workers', '1', '--quiet', '--out', out, '--device', device];
      const r = await runCli(args, ROOT, withSoftwareAdapter());
      expect(r.code, r.stderr).toBe(0);
      const config = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
      expect(config.config.device).toBe(device === 'cpu' ? undefined : device);
      const calls = readFileSync(join(out, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      return calls.filter((c) => c.kept).map((c) => `${c.docId} @${c.at}: ${c.tool}(${c.input}) -> ${c.result}`);
    };
    const cpu = await kept('cpu');
    expect(cpu.length).toBeGreaterThan(0); // a comparison of two empty lists would prove nothing
    expect(await kept('webgpu')).toEqual(cpu);
  }, 1_200_000);
});

describe('a device that cannot start is one line with the fix', () => {
  it('--device webgpu without a Vulkan driver names the missing adapter', async () => {
    // A loader with no driver at all (VK_ICD_FILENAMES names a file that does not exist).
    const r = await runCli(['score', 'x y', '--call', 'Calculator(1 + 1)', '--at', '1', '--device', 'webgpu'], ROOT, { ...process.env, VK_ICD_FILENAMES: join(work, 'none.json') });
    expect(r.code).toBe(1);
    const line = r.stderr.trim().split('\n').at(-1);
    expect(line).toMatch(noAdapter ? /^toolformer: --device webgpu: no (Vulkan loader|WebGPU adapter)/ : /^toolformer: --device webgpu: no WebGPU adapter: /);
  }, 120_000);

  it('--device cuda without onnxruntime-node\'s CUDA provider gives the command that installs it', () => {
    // This project denies onnxruntime-node's install script (package.json allowScripts), so the provider is absent.
    expect(() => assertDeviceInstalled('cuda')).toThrow(`--device cuda: onnxruntime-node's CUDA provider is not installed`);
    expect(() => assertDeviceInstalled('cuda')).toThrow(CUDA_INSTALL_COMMAND);
    expect(() => assertDeviceInstalled('cpu')).not.toThrow();
  });

  it.each([
    ['loss', ['loss', '--model', 'models/default', '--input', 'corpus/sample.jsonl', '--out', join(work, 'loss.json')]],
    ['retrieve', ['retrieve', 'How many days are in 3 weeks?', '--retriever', 'bm25']],
    ['toolkens train', ['toolkens', 'train', 'corpus/sample.jsonl', '--out', join(work, 'toolkens.safetensors')]],
  ])('%s --device cuda, the provider missing: the same one line, nothing written', async (_name, args) => {
    const r = await runCli([...args, '--device', 'cuda'], ROOT);
    expect(r.code).toBe(1);
    const line = r.stderr.trim().split('\n').at(-1)!;
    expect(line.startsWith("toolformer: --device cuda: onnxruntime-node's CUDA provider is not installed"), r.stderr).toBe(true);
    expect(line.endsWith(`install it with: ${CUDA_INSTALL_COMMAND}`), r.stderr).toBe(true);
    expect(existsSync(join(work, 'loss.json')) || existsSync(join(work, 'toolkens.safetensors'))).toBe(false);
  }, 120_000);

  it('reads ONNX Runtime\'s own errors (as measured here) into the one line, and leaves a model\'s errors alone', () => {
    expect(deviceFailure('webgpu', "Couldn't load Vulkan: libvulkan.so.1: cannot open shared object file")).toMatch(/apt-get install libvulkan1$/);
    expect(deviceFailure('webgpu', 'webgpu_context.cc:136 adapter_result.status == wgpu::RequestAdapterStatus::Success was false. Failed to get a WebGPU adapter: No supported adapters')).toMatch(/^--device webgpu: no WebGPU adapter/);
    expect(deviceFailure('cuda', 'Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file')).toMatch(/cannot load libcudnn\.so\.9\).*cuDNN 9/);
    expect(deviceFailure('webgpu', 'onnx/model.onnx: Protobuf parsing failed')).toBeNull();
    expect(deviceFailure('cpu', 'No supported adapters')).toBeNull();
  });
});
