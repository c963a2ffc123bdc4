// `toolformer serve` and `annotate --model http://…/v1` as a user runs them, each a child process: the served run
// writes the in-process run's files byte for byte; a server killed mid-run ends the run with one line, and the run
// resumes against the restarted server to the same bytes.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, spawnCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { startServe } from '../testing/serving-url.ts';

const OUTPUTS = ['train.jsonl', 'calls.jsonl', 'errors.jsonl', 'stats.json'];
const work = mkdtempSync(join(tmpdir(), 'serve-cli-'));
const servers: ChildProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

/** Starts `toolformer serve` on models/default at `port` (0: any); its child (killed after the tests) and /v1 URL. */
async function startDefaultServe(port = 0): Promise<{ child: ChildProcess; url: string }> {
  const { child, url } = startServe('models/default', port);
  servers.push(child);
  return { child, url: await url };
}

const ANNOTATE = ['annotate', 'corpus/sample.jsonl', '--max-docs', '8', '--workers', '1', '--quiet'];
const read = (dir: string, f: string) => readFileSync(join(dir, f), 'utf8');

describe('toolformer serve: a served model annotates as the model in-process', () => {
  it(
    'the same files byte for byte; a server killed mid-run ends the run in one line, and --resume against it restarted gives the same files',
    async () => {
      const local = join(work, 'local');
      const first = await runCli([...ANNOTATE, '--out', local], ROOT);
      expect(first.code, first.stderr).toBe(0);

      const { child, url } = await startDefaultServe();
      const served = join(work, 'served');
      const viaServer = await runCli([...ANNOTATE, '--model', url, '--tokenizer', 'models/default', '--out', served], ROOT);
      expect(viaServer.code, viaServer.stderr).toBe(0);
      for (const f of OUTPUTS) expect(read(served, f), f).toBe(read(local, f));
      expect(JSON.parse(read(served, 'config.json')).model).toBe(url);

      // Killed after the run's first checkpoint: the run stops with one line naming the server.
      const killed = join(work, 'killed');
      const run = spawnCli([...ANNOTATE, '--model', url, '--tokenizer', 'models/default', '--out', killed, '--server-timeout', '20'], ROOT);
      while (!existsSync(join(killed, 'checkpoint.json')) && run.child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      child.kill('SIGKILL');
      const stopped = await run.done;
      expect(stopped.code).not.toBe(0);
      const last = stopped.stderr.trim().split('\n').at(-1)!;
      expect(last).toMatch(/^toolformer: (POST|GET) http:\/\/127\.0\.0\.1:\d+\/v1\/completions: (connection refused|the connection was closed).*\(after \d+ attempts\)$/);

      const port = Number(new URL(url).port);
      const again = await startDefaultServe(port);
      expect(again.url).toBe(url);
      const resumed = await runCli([...ANNOTATE, '--model', url, '--tokenizer', 'models/default', '--out', killed, '--resume'], ROOT);
      expect(resumed.code, resumed.stderr).toBe(0);
      for (const f of OUTPUTS) expect(read(killed, f), f).toBe(read(local, f));
    },
    TEST_CAP_MS,
  );

  it('a device the backend does not run on, and a served model without its tokenizer: one line each, before any work', async () => {
    const onnxVulkan = await runCli(['annotate', 'corpus/sample.jsonl', '--device', 'vulkan', '--out', join(work, 'v')], ROOT);
    expect(onnxVulkan.code).toBe(1);
    expect(onnxVulkan.stderr.trim()).toMatch(/^toolformer: --device vulkan: the onnx backend \(.*\) runs on cpu, webgpu, cuda, auto; /);
    const noTokenizer = await runCli(['annotate', 'corpus/sample.jsonl', '--model', 'http://127.0.0.1:9/v1', '--out', join(work, 't')], ROOT);
    expect(noTokenizer.code).toBe(1);
    expect(noTokenizer.stderr.trim()).toMatch(/^toolformer: --model http:\/\/127\.0\.0\.1:9\/v1: a served model needs --tokenizer/);
  }, TEST_CAP_MS);
});
