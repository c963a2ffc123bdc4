/**
 * `--device webgpu` against `--device cpu` for `toolformer score` (issue 28 item 6), measured on this machine's
 * WebGPU **software adapter** — SwiftShader, a CPU emulating a GPU through Vulkan (pipeline/node/README.md, Devices) —
 * NOT a GPU: it shows that the WebGPU path runs and agrees, and what it costs here, never what a GPU would do.
 *
 * Each device runs the README's worked `toolformer score` command (the India document, offset 161) as a user would,
 * `runs` times in fresh processes under /usr/bin/time (CPU, wall, peak RSS), and the three printed losses are
 * compared. Start-up (modules, the model, the WebGPU device and its shaders) is most of such a command.
 *
 *   npx tsx pipeline/bench/device.ts [runs]   → pipeline/bench/results/device.json, device.md
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../core/median.ts';

const ROOT = resolve(import.meta.dirname, '../..');
/** Debian chromium-common's SwiftShader Vulkan driver (the software adapter), for the webgpu runs only. */
const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const DEVICES = ['cpu', 'webgpu'] as const;
const runs = Number(process.argv[2] ?? 3);

// The worked case as pipeline/node/README.md's runnable `toolformer score` command gives it: document id, call, offset.
const readme = readFileSync(join(ROOT, 'pipeline/node/README.md'), 'utf8');
const [, docId] = /d\.id === "([^"]+)"/.exec(readme)!;
const [, call, at] = /--call '([^']+)' --at (\d+)/.exec(readme)!;
const doc = readFileSync(join(ROOT, 'corpus/sample.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; text: string }).find((d) => d.id === docId)!;
const ARGS = ['score', doc.text, '--call', call, '--at', at];

interface Run {
  cpuSeconds: number;
  wallSeconds: number;
  peakRssMiB: number;
  /** L_a, L_b, L_c as printed (4 decimals). */
  losses: number[];
}

function run(device: (typeof DEVICES)[number], dir: string): Run {
  const timeFile = join(dir, 'time.txt');
  const env = device === 'webgpu' ? { ...process.env, VK_ICD_FILENAMES: SWIFTSHADER_ICD } : process.env;
  const stdout = execFileSync('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %e %M', process.execPath, join(ROOT, 'pipeline/node/bin.mjs'), ...ARGS, '--device', device], {
    cwd: ROOT, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 24,
  });
  const [user, system, wall, maxKb] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  const losses = ['noCall', 'callOnly', 'withResult'].map((name) => Number(new RegExp(`^L_\\w ${name}\\s+= (-?[\\d.]+)$`, 'm').exec(stdout)![1]));
  return { cpuSeconds: +(user + system).toFixed(2), wallSeconds: wall, peakRssMiB: +(maxKb / 1024).toFixed(1), losses };
}

const load = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

const tmp = mkdtempSync(join(tmpdir(), 'device-bench-'));
try {
  const loadBefore = load();
  const measured = Object.fromEntries(DEVICES.map((d) => [d, [] as Run[]]));
  // Interleaved, so that a change in the machine's load falls on both devices alike.
  for (let i = 0; i < runs; i++) for (const d of DEVICES) measured[d].push(run(d, tmp));
  const summary = Object.fromEntries(DEVICES.map((d) => {
    const rs = measured[d];
    return [d, { medianCpuSeconds: median(rs.map((r) => r.cpuSeconds)), medianWallSeconds: median(rs.map((r) => r.wallSeconds)), medianPeakRssMiB: median(rs.map((r) => r.peakRssMiB)), runs: rs }];
  }));
  const [cpu, webgpu] = [measured.cpu[0].losses, measured.webgpu[0].losses];
  const result = {
    what: `pipeline/node/README.md's worked \`toolformer score\` (${docId}, ${call} at offset ${at}, models/default) per device, each run a fresh process under /usr/bin/time`,
    adapter: `webgpu = onnxruntime-node ${JSON.parse(readFileSync(join(ROOT, 'node_modules/onnxruntime-node/package.json'), 'utf8')).version} WebGPU provider on SwiftShader (VK_ICD_FILENAMES=${SWIFTSHADER_ICD}): a software adapter, not a GPU`,
    machine: `${process.platform} ${process.arch}, ${execFileSync('nproc', { encoding: 'utf8' }).trim()} cores shared, load ${loadBefore} before and ${load()} after (CPU seconds are the measure; wall includes waiting for the cores)`,
    measured: new Date().toISOString(),
    devices: summary,
    maxLossDifference: Math.max(...cpu.map((x, i) => Math.abs(x - webgpu[i]))),
  };
  writeFileSync(join(ROOT, 'pipeline/bench/results/device.json'), JSON.stringify(result, null, 2) + '\n');
  const row = (d: (typeof DEVICES)[number]) => {
    const s = summary[d];
    return `| ${d}${d === 'webgpu' ? ' (SwiftShader, software adapter — not a GPU)' : ''} | ${s.medianCpuSeconds.toFixed(1)} | ${s.medianWallSeconds.toFixed(1)} | ${s.medianPeakRssMiB.toFixed(0)} | ${s.runs[0].losses.map((x) => x.toFixed(4)).join(', ')} |`;
  };
  const md = [
    `\`toolformer score\` on the README's worked case, median of ${runs} fresh processes per device (\`npx tsx pipeline/bench/device.ts ${runs}\`, ${result.measured.slice(0, 10)}; ${result.machine}).`,
    '',
    '| --device | CPU s | wall s | peak RSS MiB | L_a, L_b, L_c |',
    '|---|---|---|---|---|',
    row('cpu'),
    row('webgpu'),
    '',
    `Largest difference of a printed loss between the devices: ${result.maxLossDifference.toFixed(4)} nats. The webgpu row is the WebGPU code path on a ` +
      'CPU that emulates a GPU (SwiftShader): it is slower than `--device cpu` by construction and says nothing about a real GPU. No GPU was available for this measurement.',
  ].join('\n');
  writeFileSync(join(ROOT, 'pipeline/bench/results/device.md'), md + '\n');
  console.log(md);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
