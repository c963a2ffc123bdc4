/**
 * `--llama-gelu exact` without compiling anything (the build itself takes longer than a test may: llama-gelu.ts):
 * - the guarded patch on the llama.cpp source node-llama-cpp ships (its git bundle): it wraps the one
 *   `#define GGML_GELU_FP16` and nothing else, applies once, and a real C preprocessor keeps the table on without
 *   -DTOOLFORMER_GELU_EXACT (upstream's build) and turns it off with it; a vec.h it was not written for is refused;
 * - the check that the definition reached ggml-cpu's compile fails on a planted compile_commands.json without it;
 * - with the build missing, annotate --llama-gelu exact exits 1 with one line naming the command that builds it and
 *   writes nothing; another backend or device is one line; the exact build identifies the model apart from the
 *   table build (a queue run's workers and the probes' cache cannot mix them).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { convertCommand } from '../../commands/convert-command.ts';
import { modelDigest } from '../../run/run-digest.ts';
import { DEFAULT_MODEL } from '../../system/package-paths.ts';
import { spawnCli } from '../../testing/cli-child.ts';
import { skipUnlessInstalled } from '../../testing/system-requirement.ts';
import { checkDefineReachedGgmlCpu, llamaDirectory } from './llama-gelu-build.ts';
import { GELU_EXACT_BUILD_COMMAND, GELU_EXACT_DEFINE, guardGeluTable, isExactGeluBuild, GELU_EXACT_CMAKE_OPTIONS, VEC_H } from './llama-gelu.ts';
import { modelRef, openLM } from './registry.ts';

const work = mkdtempSync(join(tmpdir(), 'llama-gelu-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const which = (program: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return null;
  } catch {
    return `${program} is not installed`;
  }
};
const noCpp = skipUnlessInstalled('the guarded vec.h under a C preprocessor', which('cpp'));

describe('the guarded vec.h on the llama.cpp source node-llama-cpp ships', () => {
  let upstream = '';
  beforeAll(() => {
    // The bundle's vec.h, read without a checkout (node-llama-cpp's own clone may be patched already).
    const clone = join(work, 'llama.cpp');
    execFileSync('git', ['clone', '--quiet', '--no-checkout', join(llamaDirectory(), 'gitRelease.bundle'), clone]);
    upstream = execFileSync('git', ['-C', clone, 'show', `HEAD:${VEC_H}`], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
  }, 120_000);

  it('wraps the one #define GGML_GELU_FP16 and nothing else; applied again it changes nothing', () => {
    const patched = guardGeluTable(upstream);
    expect(patched.changed).toBe(true);
    const [before, after] = [upstream.split('\n'), patched.text.split('\n')];
    expect(after.length).toBe(before.length + 2);
    const at = after.indexOf('#define GGML_GELU_FP16');
    expect(after[at - 1]).toMatch(new RegExp(`^#ifndef ${GELU_EXACT_DEFINE}\\b`));
    expect(after[at + 1]).toBe('#endif');
    expect([...after.slice(0, at - 1), after[at], ...after.slice(at + 2)]).toEqual(before);
    expect(after).toContain('#define GGML_GELU_QUICK_FP16'); // GELU-quick's table is another op, left alone
    expect(guardGeluTable(patched.text)).toEqual({ text: patched.text, changed: false });
  });

  it.skipIf(noCpp)('under cpp: without the definition the table is on, as upstream; with it, GELU is computed', () => {
    const probe = '\n#ifdef GGML_GELU_FP16\ngelu=table\n#else\ngelu=float32\n#endif\n';
    // The defines' block of vec.h (its includes need the whole tree): from the first GELU line to the last #endif after it.
    const block = (text: string) => {
      const lines = text.split('\n');
      const from = lines.findIndex((l) => l.includes('GGML_GELU_FP16') || l.includes(GELU_EXACT_DEFINE));
      return lines.slice(from, lines.indexOf('#define GGML_GELU_QUICK_FP16')).join('\n');
    };
    const preprocess = (source: string, define: boolean) => {
      const file = join(work, `gelu-${define}.h`);
      writeFileSync(file, source + probe);
      return execFileSync('cpp', ['-P', ...(define ? [`-D${GELU_EXACT_DEFINE}`] : []), file], { encoding: 'utf8' }).trim();
    };
    const patched = block(guardGeluTable(upstream).text);
    expect(preprocess(block(upstream), false)).toBe('gelu=table');
    expect(preprocess(patched, false)).toBe('gelu=table');
    expect(preprocess(patched, true)).toBe('gelu=float32');
    expect(preprocess(block(upstream), true)).toBe('gelu=table'); // the definition alone does nothing: the patch is needed
  });

  it('refuses, in one line, a vec.h it was not written for', () => {
    expect(() => guardGeluTable('#define GGML_SOFT_MAX_UNROLL 4\n')).toThrow(`${VEC_H}: expected one line "#define GGML_GELU_FP16", found 0: not the llama.cpp this patch is for`);
    expect(() => guardGeluTable('#define GGML_GELU_FP16\n#define GGML_GELU_FP16\n')).toThrow('found 2');
    expect(() => guardGeluTable(`#ifndef ${GELU_EXACT_DEFINE}\n#define GGML_GELU_FP16\n#define X\n`)).toThrow('open but not closed');
  });
});

describe("the definition reached ggml-cpu's compile (compile_commands.json of a build)", () => {
  const plant = (name: string, opsFlags: string) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    const entry = (file: string, flags: string) => ({ directory: dir, file: `/src/llama.cpp/ggml/src/ggml-cpu/${file}`, command: `/usr/bin/c++ ${flags} -O3 -c ${file}` });
    writeFileSync(join(dir, 'compile_commands.json'), JSON.stringify([entry('ggml-cpu.c', `-D${GELU_EXACT_DEFINE}`), entry('ops.cpp', opsFlags)]));
    return dir;
  };

  it('passes when every ggml-cpu file has it, fails naming the file that has not (planted)', () => {
    expect(checkDefineReachedGgmlCpu(plant('all', `-D${GELU_EXACT_DEFINE}`))).toMatch(/compile_commands\.json$/);
    expect(() => checkDefineReachedGgmlCpu(plant('ops-without', '-DBUILDING_NODE_EXTENSION'))).toThrow(`/src/llama.cpp/ggml/src/ggml-cpu/ops.cpp was compiled without -D${GELU_EXACT_DEFINE}; the build would keep the GELU table`);
    expect(() => checkDefineReachedGgmlCpu(join(work, 'no-build'))).toThrow('missing');
  });

  it("a loaded build is the exact one only as a local CPU build with its cmake options", () => {
    expect(isExactGeluBuild({ gpu: false, buildType: 'localBuild', cmakeOptions: GELU_EXACT_CMAKE_OPTIONS })).toBe(true);
    expect(isExactGeluBuild({ gpu: false, buildType: 'prebuilt', cmakeOptions: GELU_EXACT_CMAKE_OPTIONS })).toBe(false);
    expect(isExactGeluBuild({ gpu: false, buildType: 'localBuild', cmakeOptions: {} })).toBe(false);
    expect(isExactGeluBuild({ gpu: 'vulkan', buildType: 'localBuild', cmakeOptions: GELU_EXACT_CMAKE_OPTIONS })).toBe(false);
  });
});

describe('--llama-gelu exact: one line, never the table build in its place', () => {
  let gguf = '';
  beforeAll(async () => {
    gguf = await convertCommand(DEFAULT_MODEL, { to: 'gguf', dtype: 'f32', out: join(work, 'default-f32.gguf') });
    writeFileSync(join(work, 'one.jsonl'), JSON.stringify({ id: 'one', text: 'The capital of Peru is Lima, a city of ten million people.' }) + '\n');
  }, 120_000);

  it('annotate with the build missing: exit 1, one line naming the command that builds it, nothing written', async () => {
    // One more cmake option names another localBuilds folder (node-llama-cpp reads NODE_LLAMA_CPP_CMAKE_OPTION_*),
    // one no build has: the exact build counts as missing whether or not this machine has made it.
    const env = { ...process.env, NODE_LLAMA_CPP_CMAKE_OPTION_TOOLFORMER_NO_SUCH_BUILD: '1' };
    const out = join(work, 'missing');
    const r = await spawnCli(['annotate', join(work, 'one.jsonl'), '--model', gguf, '--llama-gelu', 'exact', '--out', out, '--quiet'], work, env).done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^toolformer: --llama-gelu exact: the exact-GELU llama\\.cpp build is not here \\(no local build with its cmake options in node-llama-cpp's llama/localBuilds\\); build it once, CPU only, offline: ${GELU_EXACT_BUILD_COMMAND}\\n$`));
    expect(existsSync(join(out, 'config.json'))).toBe(false);
  }, 300_000);

  it('on another backend or device: one line', async () => {
    await expect(openLM(DEFAULT_MODEL, { llamaGelu: 'exact' })).rejects.toThrow(`--llama-gelu exact is for a .gguf model on llama.cpp; ${DEFAULT_MODEL} runs on the onnx backend`);
    await expect(openLM(gguf, { llamaGelu: 'exact', device: 'vulkan' })).rejects.toThrow('--llama-gelu exact is a CPU build of llama.cpp: use --device cpu (not vulkan)');
  });

  it('identifies the model apart from the table build; the table build keeps the file’s digest', async () => {
    const [table, exact] = await Promise.all([modelRef(gguf), modelRef(gguf, { llamaGelu: 'exact' })]);
    expect(table.digest()).toBe(modelDigest(gguf));
    expect(exact.digest()).not.toBe(table.digest());
    expect(exact.probeDigest()).toBe(exact.digest());
  });
});
