/**
 * Rebuilds kernels.wasm from kernels.as.ts with the AssemblyScript compiler (`npx tsx pipeline/train/wasm/build.ts`).
 * The built .wasm is committed, so training needs no compiler; rebuild only after editing the kernel.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
execFileSync(
  'npx',
  ['asc', join(here, 'kernels.as.ts'), '-o', join(here, 'kernels.wasm'), '-O3', '--runtime', 'stub',
    '--importMemory', '--noAssert', '--enable', 'simd', '--noExportMemory'],
  { stdio: 'inherit' },
);
console.log('wrote', join(here, 'kernels.wasm'));
