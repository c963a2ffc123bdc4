/**
 * Rebuilds the kernels from kernels.as.ts with the AssemblyScript compiler (`npx tsx pipeline/train/wasm/build.ts`):
 * kernels.wasm imports an ordinary memory (one thread); kernels-shared.wasm, the same code, imports a shared memory
 * (up to 4 GiB) so several threads can run it on one arena (matmul-threads.ts). The built .wasm files are
 * committed, so training needs no compiler; rebuild only after editing the kernel.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const common = ['-O3', '--runtime', 'stub', '--importMemory', '--noAssert', '--enable', 'simd', '--noExportMemory'];
const builds: [string, string[]][] = [
  ['kernels.wasm', []],
  ['kernels-shared.wasm', ['--enable', 'threads', '--sharedMemory', '--maximumMemory', '65536']],
];
for (const [file, extra] of builds) {
  execFileSync('npx', ['asc', join(here, 'kernels.as.ts'), '-o', join(here, file), ...common, ...extra], { stdio: 'inherit' });
  console.log('wrote', join(here, file));
}
