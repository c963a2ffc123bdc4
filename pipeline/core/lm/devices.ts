/**
 * Where the LM runs (`--device`), named by what a user has rather than by ONNX Runtime's provider names. Isomorphic:
 * a name only — the Node edge maps it to execution providers (node/model/device.ts); the web app chooses its own backend.
 * - cpu: ONNX Runtime's CPU provider (the default, everywhere).
 * - webgpu: the WebGPU provider that onnxruntime-node ships for Linux x64 (Dawn over Vulkan), macOS (Metal) and
 *   Windows (D3D12); any GPU with such a driver, or a software adapter.
 * - cuda: the CUDA provider, a separate download that a user installs (pipeline/node/README.md).
 */
export const DEVICES = ['cpu', 'webgpu', 'vulkan', 'cuda', 'metal', 'auto'] as const;
export type Device = (typeof DEVICES)[number];
