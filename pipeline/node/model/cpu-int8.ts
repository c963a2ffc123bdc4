/**
 * Whether this CPU's ONNX Runtime int8 matmuls saturate (onnx/int8-range.ts says why): an x86-64 CPU without
 * AVX-512 VNNI or AVX-VNNI. Read from /proc/cpuinfo's flags on Linux; other x86-64 systems are `undefined` (not
 * known); other architectures (Arm's dot-product kernels widen to int32) are false.
 */
import { readFileSync } from 'node:fs';

/** From a /proc/cpuinfo text: true when it has x86 flags but neither VNNI flag; undefined without a flags line. */
export function int8PairsSaturateFromCpuinfo(cpuinfo: string): boolean | undefined {
  const flags = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1].trim().split(/\s+/);
  if (!flags) return undefined;
  return !flags.includes('avx512_vnni') && !flags.includes('avx_vnni');
}

let cached: boolean | undefined | null = null;

/** This machine's answer (see the file comment), read once per process. */
export function int8PairsSaturate(): boolean | undefined {
  if (cached !== null) return cached;
  if (process.arch !== 'x64') cached = false;
  else if (process.platform !== 'linux') cached = undefined;
  else {
    try {
      cached = int8PairsSaturateFromCpuinfo(readFileSync('/proc/cpuinfo', 'utf8'));
    } catch {
      cached = undefined;
    }
  }
  return cached;
}
