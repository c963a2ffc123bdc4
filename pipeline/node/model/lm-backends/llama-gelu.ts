/**
 * llama.cpp's GELU on the CPU, `--llama-gelu table|exact` (GGUF models only; recorded in config.json: it changes losses).
 *
 * - `table` (the default): node-llama-cpp's prebuilt binaries. ggml-cpu computes GELU through a float16 lookup table
 *   (`#define GGML_GELU_FP16` in ggml/src/ggml-cpu/vec.h, unconditional upstream): y = fp16(gelu_tanh(fp16(x))) for
 *   |x| < 10, which moves GPT-2's log-probs ~1e-3 nats from ONNX Runtime's (pipeline/bench/results/gguf-parity.md).
 * - `exact`: a local llama.cpp build, CPU only, whose vec.h skips that define, so GELU is computed in float32
 *   (`ggml_gelu_f32`). Built once by `npx toolformer build-llama --gelu exact` (llama-gelu-build.ts) from the llama.cpp
 *   source node-llama-cpp ships as a git bundle (offline); it lands in node-llama-cpp's llama/localBuilds/ under a
 *   folder named by its cmake options, so the prebuilt binaries are never replaced.
 *
 * The patch is guarded: `#ifndef TOOLFORMER_GELU_EXACT` around the define, so the patched source without the
 * compile definition builds exactly as upstream; the definition reaches ggml-cpu's compile through the Release C and
 * C++ flags (vec.h is included from both C and C++ files), checked in the build's compile_commands.json. Models without GELU (Llama, Qwen2: SiLU) compute the
 * same on both builds but for the build's own compiler flags.
 */
export type LlamaGelu = 'table' | 'exact';
export const LLAMA_GELUS: readonly LlamaGelu[] = ['table', 'exact'];

/** The compile definition that turns the float16 GELU table off in the guarded vec.h. */
export const GELU_EXACT_DEFINE = 'TOOLFORMER_GELU_EXACT';

/**
 * node-llama-cpp `cmakeOptions` of the exact-GELU build (they also name its localBuilds folder). The Release flags
 * (node-llama-cpp builds Release) are CMake's GCC/Clang default `-O3 -DNDEBUG` plus the definition: CMAKE_CXX_FLAGS
 * itself would not do, cmake-js sets it after the custom options (to -DBUILDING_NODE_EXTENSION; measured: the
 * definition never reached ggml-cpu's C++ files, which call the GELU kernel).
 */
const RELEASE_FLAGS = `-O3 -DNDEBUG -D${GELU_EXACT_DEFINE}`;
export const GELU_EXACT_CMAKE_OPTIONS: Readonly<Record<string, string>> = {
  CMAKE_C_FLAGS_RELEASE: RELEASE_FLAGS,
  CMAKE_CXX_FLAGS_RELEASE: RELEASE_FLAGS,
};

/** The one command that builds it, named wherever the build is missing. */
export const GELU_EXACT_BUILD_COMMAND = 'npx toolformer build-llama --gelu exact';

/** vec.h inside the llama.cpp source tree. */
export const VEC_H = 'ggml/src/ggml-cpu/vec.h';

const TABLE_DEFINE = '#define GGML_GELU_FP16';
const GUARD_OPEN = `#ifndef ${GELU_EXACT_DEFINE} // toolformer: -D${GELU_EXACT_DEFINE} computes GELU in float32, not through the float16 table`;

/**
 * vec.h with `#define GGML_GELU_FP16` inside `#ifndef TOOLFORMER_GELU_EXACT … #endif`; `changed` is false when it is
 * already guarded (the patch is idempotent). A vec.h without exactly one such line is refused in one thrown line.
 */
export function guardGeluTable(vecH: string): { text: string; changed: boolean } {
  const lines = vecH.split('\n');
  const at = lines.flatMap((line, i) => (line.trim() === TABLE_DEFINE ? [i] : []));
  if (at.length !== 1) throw new Error(`${VEC_H}: expected one line "${TABLE_DEFINE}", found ${at.length}: not the llama.cpp this patch is for`);
  const i = at[0];
  if (lines[i - 1]?.startsWith(`#ifndef ${GELU_EXACT_DEFINE}`)) {
    if (lines[i + 1]?.trim() !== '#endif') throw new Error(`${VEC_H}: the ${GELU_EXACT_DEFINE} guard is open but not closed after "${TABLE_DEFINE}"`);
    return { text: vecH, changed: false };
  }
  return { text: [...lines.slice(0, i), GUARD_OPEN, lines[i], '#endif', ...lines.slice(i + 1)].join('\n'), changed: true };
}

/** What `getLlama` returned, as far as the check below needs it. */
export interface LoadedBuild {
  gpu: unknown;
  buildType: 'localBuild' | 'prebuilt';
  cmakeOptions: Readonly<Record<string, string>>;
}

/** Whether a loaded llama.cpp is the exact-GELU CPU build (never the table build under another name). */
export function isExactGeluBuild(llama: LoadedBuild): boolean {
  return llama.gpu === false && llama.buildType === 'localBuild' &&
    Object.entries(GELU_EXACT_CMAKE_OPTIONS).every(([key, value]) => llama.cmakeOptions[key] === value);
}

/** The one line for a missing exact-GELU build. */
export function missingBuildLine(why: string): string {
  return `--llama-gelu exact: the exact-GELU llama.cpp build is not here (${why}); build it once, CPU only, offline: ${GELU_EXACT_BUILD_COMMAND}`;
}
