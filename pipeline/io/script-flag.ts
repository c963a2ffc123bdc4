/**
 * One `--name value` (or `--name=value`) flag of a script (the benchmarks in pipeline/bench), through node:util's
 * parseArgs; the last occurrence wins; `fallback` when absent. Other flags are left to their own calls, so a
 * script reads each of its flags by name without declaring them all in one place.
 */
import { parseArgs } from 'node:util';

export function scriptFlag(name: string, fallback: string, args: string[] = process.argv.slice(2)): string {
  const { values } = parseArgs({ args, options: { [name]: { type: 'string' } }, strict: false, allowPositionals: true });
  const value = values[name];
  // Non-strict parseArgs takes the next argument even when it is another flag: that is no value.
  return typeof value === 'string' && !value.startsWith('--') ? value : fallback;
}
