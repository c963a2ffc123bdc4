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
