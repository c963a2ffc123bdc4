/**
 * `npx toolformer build-llama --gelu exact`: the exact-GELU llama.cpp build (llama-gelu.ts says what and why), through
 * node-llama-cpp's own machinery, CPU only, offline:
 *   1. its `source download --skipBuild` clones the llama.cpp source it ships as a git bundle (llama/llama.cpp; its
 *      own patches applied as on any source build), replacing any earlier clone;
 *   2. vec.h gets the guarded define (guardGeluTable);
 *   3. `getLlama({ gpu: false, build: 'forceRebuild', cmakeOptions })` compiles it into llama/localBuilds/<a folder
 *      named by those options>, and loads it once;
 *   4. the build tree's compile flags of ggml-cpu must carry -DTOOLFORMER_GELU_EXACT, or the build is refused.
 * Node only. Minutes of CPU (the README's install section gives the measured wall time).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readBoundedFile, readBoundedJson } from '../../../io/bounded-read.ts';
import { exactGeluLlama, importNodeLlamaCpp } from './llama-cpp.ts';
import { GELU_EXACT_CMAKE_OPTIONS, GELU_EXACT_DEFINE, guardGeluTable, isExactGeluBuild, VEC_H } from './llama-gelu.ts';

/** node-llama-cpp's llama/ folder (the source clone and localBuilds/ live there). */
export function llamaDirectory(): string {
  return join(dirname(fileURLToPath(import.meta.resolve('node-llama-cpp'))), '..', 'llama');
}

/** The localBuilds folder of the exact-GELU build: the one whose build metadata names its cmake options; null if none. */
export function exactGeluBuildFolder(llamaDir = llamaDirectory()): string | null {
  const builds = join(llamaDir, 'localBuilds');
  if (!existsSync(builds)) return null;
  for (const name of readdirSync(builds)) {
    const metadata = join(builds, name, 'Release', '_nlcBuildMetadata.json');
    if (!existsSync(metadata)) continue;
    const options = (readBoundedJson(metadata, 'node-llama-cpp build metadata', 2 ** 20) as { buildOptions?: { gpu?: unknown; customCmakeOptions?: Record<string, string> } }).buildOptions;
    const cmake = options?.customCmakeOptions ?? {};
    if (options?.gpu === false && Object.entries(GELU_EXACT_CMAKE_OPTIONS).every(([key, value]) => cmake[key] === value)) return join(builds, name);
  }
  return null;
}

/**
 * Throws one line unless every ggml-cpu file in the build's compile_commands.json (CMake writes it for any generator)
 * was compiled with the definition, ops.cpp (which calls the GELU kernel) among them; returns the file checked.
 */
export function checkDefineReachedGgmlCpu(buildFolder: string): string {
  const path = join(buildFolder, 'compile_commands.json');
  if (!existsSync(path)) throw new Error(`${path}: missing: cannot tell whether -D${GELU_EXACT_DEFINE} reached ggml-cpu's compile`);
  const commands = readBoundedJson(path, 'compile commands', 64 * 2 ** 20) as { file: string; command?: string; arguments?: string[] }[];
  const ggmlCpu = commands.filter((c) => c.file.replaceAll('\\', '/').includes('/ggml/src/ggml-cpu/'));
  if (!ggmlCpu.some((c) => c.file.endsWith('/ops.cpp'))) throw new Error(`${path}: no ggml-cpu/ops.cpp compile command: cannot tell whether -D${GELU_EXACT_DEFINE} reached the GELU kernel`);
  const missing = ggmlCpu.find((c) => !(c.command ?? c.arguments?.join(' ') ?? '').includes(`-D${GELU_EXACT_DEFINE}`));
  if (missing) throw new Error(`${path}: ${missing.file} was compiled without -D${GELU_EXACT_DEFINE}; the build would keep the GELU table`);
  return path;
}

/** Patches the cloned source's vec.h (idempotent); returns whether it changed. */
function patchSource(llamaDir: string): boolean {
  const vecH = join(llamaDir, 'llama.cpp', VEC_H);
  const { text, changed } = guardGeluTable(readBoundedFile(vecH, 'llama.cpp source', 4 * 2 ** 20).toString('utf8'));
  if (changed) writeFileSync(vecH, text);
  return changed;
}

export interface BuiltExactGelu {
  folder: string;
  flagsFile: string;
  seconds: number;
}

/** What the build left beside itself (BUILD_RECORD in its folder): when, how long, on what machine; the parity bench reports it. */
export interface BuildRecord {
  built: string;
  wallSeconds: number;
  /** CPU seconds of the compile (this process's reaped children: npm, cmake-js, cmake, the compilers); null off Linux. */
  cpuSeconds: number | null;
  cores: number;
  /** The 1-minute load average before and after. */
  loadAverage: [number, number];
}
export const BUILD_RECORD = 'toolformer-build.json';

/** CPU seconds of this process's reaped children, from /proc/self/stat (cutime + cstime, in USER_HZ = 100 ticks a second); null off Linux. */
function childrenCpuSeconds(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const stat = readBoundedFile('/proc/self/stat', 'process status', 4096).toString('utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd on (the command name may hold spaces)
  return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime: fields 16 and 17
}

export function writeBuildRecord(folder: string, record: BuildRecord): void {
  writeFileSync(join(folder, BUILD_RECORD), JSON.stringify(record, null, 2) + '\n');
}

/**
 * Runs `work` with console.log sent to stderr: node-llama-cpp's commands print their progress with it ("Repo: …",
 * "Release: …", "Done"), and stdout is this command's result (measured: the fresh-clone CI's build printed them there).
 */
async function progressOnStderr<T>(work: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = (...args: unknown[]) => console.error(...args);
  try {
    return await work();
  } finally {
    console.log = log;
  }
}

/** Clones, patches, builds and checks the exact-GELU build; progress goes to stderr. */
export async function buildExactGelu(log: (line: string) => void = (line) => console.error(line)): Promise<BuiltExactGelu> {
  const started = performance.now();
  const loadBefore = loadavg()[0];
  const cpuBefore = childrenCpuSeconds();
  const llamaDir = llamaDirectory();
  const lib = await importNodeLlamaCpp();
  const { DownloadLlamaCppCommand } = await import('node-llama-cpp/commands');
  log('toolformer: cloning the llama.cpp source node-llama-cpp ships (its git bundle, offline)');
  await progressOnStderr(() => DownloadLlamaCppCommand({ skipBuild: true, noUsageExample: true }));
  patchSource(llamaDir);
  log(`toolformer: ${VEC_H} guarded (#ifndef ${GELU_EXACT_DEFINE}); compiling llama.cpp for the CPU with -D${GELU_EXACT_DEFINE} (minutes)`);
  const llama = await progressOnStderr(() => lib.getLlama({ gpu: false, build: 'forceRebuild', usePrebuiltBinaries: false, cmakeOptions: { ...GELU_EXACT_CMAKE_OPTIONS }, progressLogs: 'stderr', logLevel: lib.LlamaLogLevel.error }));
  const loaded = isExactGeluBuild(llama);
  await llama.dispose();
  const folder = exactGeluBuildFolder(llamaDir);
  if (!loaded || folder === null) throw new Error(`node-llama-cpp did not load the exact-GELU build it compiled (${llamaDir}/localBuilds)`);
  const flagsFile = checkDefineReachedGgmlCpu(folder);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = childrenCpuSeconds();
  const cpuSeconds = cpuBefore === null || cpuAfter === null ? null : Math.round(cpuAfter - cpuBefore);
  writeBuildRecord(folder, { built: new Date().toISOString(), wallSeconds: Math.round(seconds), cpuSeconds, cores: availableParallelism(), loadAverage: [Number(loadBefore.toFixed(1)), Number(loadavg()[0].toFixed(1))] });
  return { folder, flagsFile, seconds };
}

/**
 * `toolformer build-llama --gelu exact [--rebuild]`: builds it (or, built already and loading as the exact build, says
 * so: `--rebuild` builds it again) and says where, how long, and how a run uses it.
 */
export async function buildLlamaCommand(opts: { gelu: string; rebuild?: boolean }): Promise<void> {
  if (opts.gelu !== 'exact') throw new Error(`--gelu ${opts.gelu}: build-llama builds only exact (the table build is node-llama-cpp's prebuilt one)`);
  const folder = exactGeluBuildFolder();
  if (folder !== null && !opts.rebuild) {
    await (await exactGeluLlama(await importNodeLlamaCpp(), 'cpu')).dispose(); // it loads as the exact build, or one line
    console.log(`the exact-GELU llama.cpp (CPU) is built already: ${folder} (--rebuild builds it again)`);
    console.log(`-D${GELU_EXACT_DEFINE} reached ggml-cpu's compile (${checkDefineReachedGgmlCpu(folder)}); a .gguf model uses it with --llama-gelu exact`);
    return;
  }
  const built = await buildExactGelu();
  console.log(`built the exact-GELU llama.cpp (CPU) in ${Math.round(built.seconds)} s: ${built.folder}`);
  console.log(`-D${GELU_EXACT_DEFINE} reached ggml-cpu's compile (${built.flagsFile}); a .gguf model uses it with --llama-gelu exact`);
}
