/**
 * The WebGPU software adapter the tests and CI use for `--device webgpu` (pipeline/node/README.md, Devices): Debian's
 * Vulkan loader (libvulkan1) and the SwiftShader Vulkan driver that Debian's chromium installs (chromium-common).
 * Tests point VK_ICD_FILENAMES at it for their own child processes; the CLI never does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Where chromium-common installs SwiftShader's Vulkan driver manifest (`dpkg -L chromium-common | grep swiftshader`). */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** Why the software adapter cannot run here (a line for skipUnlessInstalled), or null when it can. */
export function softwareAdapterMissing(): string | null {
  // The dynamic linker's cache lists it (ldconfig is in /sbin, often off a user's PATH).
  const loader = ['ldconfig', '/sbin/ldconfig'].some((ldconfig) => {
    try {
      return /libvulkan\.so\.1\b/.test(execFileSync(ldconfig, ['-p'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    } catch {
      return false;
    }
  });
  if (!loader) return 'no Vulkan loader libvulkan.so.1 (Debian package libvulkan1)';
  if (!existsSync(SWIFTSHADER_ICD)) return `no SwiftShader Vulkan driver at ${SWIFTSHADER_ICD} (Debian package chromium)`;
  return null;
}

/** `env` with the Vulkan loader pointed at SwiftShader only. */
export const withSoftwareAdapter = (env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv => ({ ...env, VK_ICD_FILENAMES: SWIFTSHADER_ICD });

/**
 * Mesa's lavapipe Vulkan driver (Debian package mesa-vulkan-drivers): llama.cpp's Vulkan backend needs 16-bit
 * storage, which SwiftShader lacks, and runs a CPU-type device only when GGML_VK_VISIBLE_DEVICES names it.
 */
export const LAVAPIPE_ICD = '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json';

/** Why llama.cpp's Vulkan backend cannot run on a software driver here, or null when it can. */
export function lavapipeMissing(): string | null {
  return softwareAdapterMissing()?.startsWith('no Vulkan loader') ? softwareAdapterMissing() : existsSync(LAVAPIPE_ICD) ? null : `no lavapipe Vulkan driver at ${LAVAPIPE_ICD} (Debian package mesa-vulkan-drivers)`;
}

/** `env` with the Vulkan loader pointed at lavapipe only, and ggml-vulkan told to use that CPU-type device. */
export const withLavapipe = (env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv => ({ ...env, VK_ICD_FILENAMES: LAVAPIPE_ICD, GGML_VK_VISIBLE_DEVICES: '0' });
