/**
 * Node edge of `--device` (core/lm/devices.ts): which onnxruntime-node execution providers a device means, whether
 * the device can work on this machine, and what to say when it cannot — one line naming what is missing and the one
 * command that fixes it. Nothing is chosen silently: `--device webgpu` never falls back to the CPU, and no software
 * adapter is picked for the user (a test or CI points VK_ICD_FILENAMES at one; pipeline/node/README.md, Devices).
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { listSupportedBackends } from 'onnxruntime-node';
import type { Device } from '../../core/lm/devices.ts';

/** The command that installs onnxruntime-node's CUDA provider (its install script; this package's allowScripts denies it on `npm install`). */
export const CUDA_INSTALL_COMMAND = 'node node_modules/onnxruntime-node/script/install.js --onnxruntime-node-install=cuda12';

/** The files onnxruntime-node's install script puts beside its binding for `cuda12` (script/install-metadata.js). */
const CUDA_FILES = ['libonnxruntime_providers_shared.so', 'libonnxruntime_providers_cuda.so'];

/** ONNX Runtime session options for `device` (merged into the loader's threads and optimisation options). */
export function deviceSessionOptions(device: Device): { executionProviders: string[]; logSeverityLevel?: number } {
  // Errors only: ONNX Runtime warns on every session that shape ops stay on the CPU, which is by design.
  return device === 'cpu' ? { executionProviders: ['cpu'] } : { executionProviders: [device], logSeverityLevel: 3 };
}

/** The folder onnxruntime-node loads its native files from (bin/napi-v6/<platform>/<arch>). */
function bindingDir(): string {
  const entry = createRequire(import.meta.url).resolve('onnxruntime-node'); // <package>/dist/index.js
  return join(dirname(entry), '..', 'bin', 'napi-v6', process.platform, process.arch);
}

/**
 * Throws one line when `device` cannot work here whatever the model: a provider this onnxruntime-node build lacks,
 * or the CUDA provider's files not installed. (A missing driver or adapter shows only when a session is made:
 * deviceFailure reads that error.)
 */
export function assertDeviceInstalled(device: Device): void {
  if (device === 'cpu') return;
  const backend = listSupportedBackends().find((b) => b.name === device);
  const platform = `${process.platform}/${process.arch}`;
  if (!backend) throw new Error(`--device ${device}: onnxruntime-node has no ${device} provider on ${platform}; use --device ${device === 'cuda' ? 'webgpu or cpu' : 'cpu'}`);
  if (device === 'cuda' && !backend.bundled) {
    const dir = bindingDir();
    const missing = CUDA_FILES.filter((f) => !existsSync(join(dir, f)));
    if (missing.length > 0) {
      throw new Error(`--device cuda: onnxruntime-node's CUDA provider is not installed (${missing.join(', ')} missing in ${dir}); install it with: ${CUDA_INSTALL_COMMAND}`);
    }
  }
}

/**
 * The one line for a session that `device`'s provider could not create (`message`: ONNX Runtime's error), or null
 * when the error is not the device's (a bad model is reported as such).
 */
export function deviceFailure(device: Device, message: string): string | null {
  if (device === 'webgpu') {
    if (/libvulkan\.so|Couldn't load Vulkan/i.test(message)) {
      return '--device webgpu: no Vulkan loader (libvulkan.so.1) on this machine; install it with: sudo apt-get install libvulkan1';
    }
    if (/WebGPU adapter|No supported adapters|RequestAdapter/i.test(message)) {
      return (
        '--device webgpu: no WebGPU adapter: no GPU with a Vulkan (Linux), Metal (macOS) or D3D12 (Windows) driver was found; ' +
        "install the GPU's driver (pipeline/node/README.md, Devices, names a software adapter for tests)"
      );
    }
  }
  if (device === 'cuda' && /CUDA|cudnn|cublas|providers_cuda|providers_shared/i.test(message)) {
    // The library the loader could not open ("…: libcudnn.so.9: cannot open shared object file"), else the first named.
    const library = /(lib[\w.+-]+\.so[\d.]*): cannot open/.exec(message)?.[1] ?? /lib[\w.+-]+\.so[\d.]*/.exec(message)?.[0];
    return (
      `--device cuda: the CUDA provider could not start${library ? ` (cannot load ${library})` : ''}: it needs the NVIDIA driver and the CUDA 12 and ` +
      'cuDNN 9 libraries on LD_LIBRARY_PATH (pipeline/node/README.md, Devices)'
    );
  }
  return null;
}
