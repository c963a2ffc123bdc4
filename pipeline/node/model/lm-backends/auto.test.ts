/**
 * `--model auto:…` (auto.ts) on the bundled model in both forms: the ONNX folder and its f32 GGUF beside it.
 * - the pick is the runtime the committed bench measured faster, from either form's name, said in one line, and the
 *   opened model scores exactly as that form opened directly;
 * - with a --device one runtime runs on only, that one; on a GPU both run on (cuda), llama.cpp; a form opened on a
 *   device its backend lacks is refused by that backend;
 * - one form only: that form runs; two GGUF files in the folder, or nothing there: one line each;
 * - the committed measurement (pipeline/bench/results/backends.json) still agrees with FASTER_RUNTIME at every shape
 *   (and the check fails on a measurement that says otherwise).
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { convertCommand } from '../../commands/convert-command.ts';
import { ROOT } from '../../testing/cli-child.ts';
import { FASTER_RUNTIME, pickRuntime } from './auto.ts';
import { LM_BACKENDS, openLM, type LoadedLM } from './registry.ts';

const work = mkdtempSync(join(tmpdir(), 'lm-auto-test-'));
const folder = join(work, 'default');
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(async () => {
  cpSync(join(ROOT, 'models/default'), folder, { recursive: true });
  await convertCommand(folder, { to: 'gguf', dtype: 'f32', out: `${folder}.gguf` });
}, 120_000);

type Rows = { shape: string; runtimes: { runtime: string; cpuSeconds: { losses?: number; probe?: number } }[] };

/**
 * Per shape and llama.cpp dtype, the runtime whose scorer (losses + p_i CPU seconds) was faster: ONNX Runtime against
 * llama.cpp at that dtype (whichever GGUF sits beside the folder, the pick must hold).
 */
function measuredFaster(result: { rows: Rows[] }): Record<string, 'onnx' | 'llama.cpp'> {
  const cpu = (r: Rows, name: string) => {
    const c = r.runtimes.find((x) => x.runtime === name)!.cpuSeconds;
    return c.losses! + c.probe!;
  };
  return Object.fromEntries(
    result.rows.flatMap((r) => ['f32', 'f16', 'q8_0'].map((d) => [`${r.shape} ${d}`, cpu(r, 'onnx') <= cpu(r, `llama.cpp ${d}`) ? 'onnx' : 'llama.cpp'])),
  );
}

describe('--model auto:…', () => {
  it('picks the measured-faster runtime from either form, says it in one line, and scores as that form does', async () => {
    const expected = FASTER_RUNTIME === 'onnx' ? folder : `${folder}.gguf`;
    for (const named of [folder, `${folder}.gguf`, `${folder}/`]) {
      const pick = pickRuntime(`auto:${named}`);
      expect([pick.runtime, pick.path]).toEqual([FASTER_RUNTIME, expected]);
      expect(pick.line).toMatch(new RegExp(`^--model auto: ${FASTER_RUNTIME.replace('.', '\\.')} on .*: .*(faster).*backends\\.md\\)$`));
    }
    const said = vi.spyOn(console, 'error').mockImplementation(() => {});
    let auto: LoadedLM | undefined;
    let direct: LoadedLM | undefined;
    try {
      auto = await openLM(`auto:${folder}`);
      direct = await openLM(expected);
      expect(said.mock.calls.map((c) => String(c[0]))).toEqual([`toolformer: ${pickRuntime(`auto:${folder}`).line}`]);
      const text = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').split('\n')[0];
      const request = { ids: [auto.bosId!, ...auto.encode(JSON.parse(text).text)].slice(0, 64), probe: auto.encode(' [')[0] };
      const [[a], [d]] = [await auto.score([request]), await direct.score([request])];
      expect(Array.from(a.tokenLogProbs)).toEqual(Array.from(d.tokenLogProbs));
      expect(Array.from(a.probeLogProbs!)).toEqual(Array.from(d.probeLogProbs!));
    } finally {
      said.mockRestore();
      await auto?.release?.();
      await direct?.release?.();
    }
  }, 120_000);

  it('a --device one runtime runs on picks that runtime; cuda picks llama.cpp; the CPU picks the measured one', async () => {
    const runsOn = (runtime: string, device: string) => LM_BACKENDS.find((b) => b.name === runtime)!.devices.includes(device as never);
    const pick = (device?: 'cpu' | 'auto' | 'vulkan' | 'metal' | 'webgpu' | 'cuda') => pickRuntime(`auto:${folder}`, device, runsOn);
    expect([pick('vulkan'), pick('metal')].map((p) => [p.runtime, p.path, p.line.replace(/.*: /, '')])).toEqual([
      ['llama.cpp', `${folder}.gguf`, '--device vulkan runs on llama.cpp only'],
      ['llama.cpp', `${folder}.gguf`, '--device metal runs on llama.cpp only'],
    ]);
    expect([pick('webgpu').runtime, pick('webgpu').path]).toEqual(['onnx', folder]);
    expect(pick('cuda')).toMatchObject({ runtime: 'llama.cpp', line: expect.stringMatching(/both run on cuda; llama\.cpp's npm packages carry/) });
    for (const device of [undefined, 'cpu', 'auto'] as const) expect(pick(device).runtime).toBe(FASTER_RUNTIME);
    // With one form only, the device is that form's backend's to refuse, in one line.
    const lone = join(work, 'lone-onnx');
    cpSync(join(ROOT, 'models/default'), lone, { recursive: true });
    await expect(openLM(`auto:${lone}`, { device: 'vulkan' })).rejects.toThrow(/^--device vulkan: the onnx backend .* runs on cpu, webgpu, cuda, auto; vulkan is for llama\.cpp/);
  });

  it('one form only runs that form; two GGUF files or nothing there is one line', () => {
    expect(pickRuntime(`auto:${join(ROOT, 'models/default')}`)).toMatchObject({ runtime: 'onnx', line: expect.stringMatching(/no \.gguf beside or inside it\)$/) });
    const lone = join(work, 'lone.gguf');
    copyFileSync(`${folder}.gguf`, lone);
    expect(pickRuntime(`auto:${lone}`)).toMatchObject({ runtime: 'llama.cpp', path: lone, line: expect.stringMatching(/no ONNX folder beside it\)$/) });
    const two = join(work, 'two');
    cpSync(folder, two, { recursive: true });
    copyFileSync(`${folder}.gguf`, join(two, 'a.gguf'));
    copyFileSync(`${folder}.gguf`, join(two, 'b.gguf'));
    expect(() => pickRuntime(`auto:${two}`)).toThrow(/^--model auto:.*two: 2 \.gguf files in the folder \(a\.gguf, b\.gguf\); name one$/);
    expect(() => pickRuntime(`auto:${join(work, 'nothing')}`)).toThrow(/neither an ONNX folder nor a \.gguf file is there$/);
  });

  it('the committed measurement agrees with FASTER_RUNTIME at every shape, and the check catches one that does not', () => {
    const result = JSON.parse(readFileSync(join(ROOT, 'pipeline/bench/results/backends.json'), 'utf8')) as { rows: Rows[] };
    expect(result.rows.map((r) => r.shape).sort()).toEqual(['135m', 'bundled']);
    const faster = measuredFaster(result);
    expect(Object.keys(faster)).toHaveLength(6);
    for (const runtime of Object.values(faster)) expect(runtime).toBe(FASTER_RUNTIME);
    // Planted: the other runtime's scorer made 10× cheaper at one shape.
    const planted = structuredClone(result);
    const other = planted.rows[1].runtimes.find((x) => x.runtime === (FASTER_RUNTIME === 'onnx' ? 'llama.cpp f32' : 'onnx'))!;
    other.cpuSeconds = { losses: 1e-6, probe: 1e-6 };
    expect(Object.values(measuredFaster(planted))).toContain(FASTER_RUNTIME === 'onnx' ? 'llama.cpp' : 'onnx');
  });
});
