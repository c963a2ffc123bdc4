/**
 * Tests that need a program from the system (Chromium, Apertium, redis-server) ask here once per group.
 * In CI (`CI` set, as every CI service sets it) a missing program fails the test file with one line that names it
 * and how to install it: a green CI run has run every group. Elsewhere the group is skipped, with one visible
 * line on stderr, so a local run on a machine without root still says what it did not test.
 */
export function skipUnlessInstalled(group: string, missing: string | null | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!missing) return false;
  const line = `${group}: ${missing} (bash .ci/ensure-apt.sh installs it as root)`;
  if (env.CI && env.CI !== 'false' && env.CI !== '0') throw new Error(`CI needs ${line}`);
  console.warn(`skipped — ${line}`);
  return true;
}
