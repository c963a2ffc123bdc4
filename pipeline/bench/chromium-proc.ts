/**
 * Chromium's processes as the benchmarks see them from Linux /proc: CPU time of every process this one started
 * (the browser, its renderers, GPU and utility processes, threads included) and the memory of the tab's renderer
 * (the page and its model worker run there; with WebGPU the weights also live in the GPU process).
 */
import { readdirSync, readFileSync } from 'node:fs';

interface Proc {
  pid: number;
  ppid: number;
  /** utime + stime, clock ticks. */
  ticks: number;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from #3 (state) on
      out.push({ pid: Number(name), ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** The live descendants of this process. */
function descendants(): Proc[] {
  const all = processes();
  const parent = new Map(all.map((p) => [p.pid, p.ppid]));
  return all.filter((proc) => {
    for (let p = parent.get(proc.pid); p !== undefined && p > 1; p = parent.get(p)) if (p === process.pid) return true;
    return false;
  });
}

/** utime + stime of every live descendant process of this one, seconds (USER_HZ 100). */
export function descendantsCpuSeconds(): number {
  return descendants().reduce((s, p) => s + p.ticks, 0) / 100;
}

/** MiB: current and peak (VmHWM) resident set of one process. */
export interface ProcessMemory {
  rssMiB: number;
  peakRssMiB: number;
}

function memoryOf(pid: number): ProcessMemory | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakRssMiB: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/**
 * Memory of the Chromium processes of `type` (--type=renderer, gpu-process, …) among this process's descendants:
 * the one with the largest peak (a tab is one renderer; the browser may keep a spare one, which stays small).
 */
export function chromiumProcessMemory(type: 'renderer' | 'gpu-process'): ProcessMemory | null {
  let best: ProcessMemory | null = null;
  for (const p of descendants()) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    // Chromium rewrites its argv as one space-separated string (setproctitle), so match the flag as a word.
    if (!cmdline.split(/[\s\0]+/).includes(`--type=${type}`)) continue;
    const m = memoryOf(p.pid);
    if (m && (!best || m.peakRssMiB > best.peakRssMiB)) best = m;
  }
  return best;
}
