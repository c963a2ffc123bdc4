/**
 * `toolformer toolkens train` says what its numbers mean (issue 49 item 9): recall as k of n held-out calls with its
 * 95 % interval, and, when n is a handful, that the numbers tell little. The bundled model and the experiment's kept
 * calls (models/toolformer/finetune-data/a.jsonl, arm (a)): 10 records, npm start's size, hold out one record; all
 * 187 hold out enough calls for recall to mean something — the "recall 0.0 %" of a small run is its data, not the
 * model's size.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeToolkens } from '../../core/toolkens/file.ts';
import { ROOT, runCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';
import { toolkenNumbersMeaning } from './toolkens-meaning.ts';

const A = resolve(ROOT, 'models/toolformer/finetune-data/a.jsonl');
const dir = mkdtempSync(join(tmpdir(), 'toolkens-meaning-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Train on `records` (seed 1) and return the lines it printed after training, with the card's held-out counts. */
async function train(name: string, records: string[]) {
  writeFileSync(join(dir, `${name}.jsonl`), `${records.join('\n')}\n`);
  const out = join(dir, `${name}.safetensors`);
  const run = await runCli(['toolkens', 'train', `${name}.jsonl`, '--out', out, '--seed', '1'], dir);
  expect(run.code, run.stderr).toBe(0);
  const positions = JSON.parse(decodeToolkens(new Uint8Array(readFileSync(out))).meta.positions) as { valToolken: number };
  const said = run.stderr.split(/[\r\n]/).filter((l) => /^toolkens: (recall is|no call was held out|\d+ calls? to learn from)/.test(l));
  return { said, heldOut: positions.valToolken };
}

describe('toolkens train: what its numbers mean', { timeout: TEST_CAP_MS }, () => {
  const records = readFileSync(A, 'utf8').split('\n').filter(Boolean);

  it("npm start's size (10 records): recall as k of a handful of held-out calls, and that this tells little", async () => {
    const { said, heldOut } = await train('small', records.slice(0, 10));
    expect(heldOut).toBeGreaterThan(0);
    expect(heldOut).toBeLessThan(10);
    expect(said[0]).toMatch(new RegExp(`^toolkens: recall is the share of the ${heldOut} held-out calls? whose toolken beats every word at its position: \\d+ of ${heldOut} at epoch \\d+.* \\(95 % interval [\\d.]+ %–[\\d.]+ %\\)`));
    expect(said[1]).toMatch(/^toolkens: \d+ calls to learn from and \d+ held out are too few for recall to tell much: train on more calls/);
    expect(said).toHaveLength(2);
  });

  it('the experiment\'s 187 records: enough held-out calls, most of them recalled, no "too few" line', async () => {
    const { said, heldOut } = await train('all', records);
    expect(heldOut).toBeGreaterThanOrEqual(20);
    const [, k, n] = /: (\d+) of (\d+) at epoch/.exec(said[0])!.map(Number);
    expect(n).toBe(heldOut);
    expect(k / n).toBeGreaterThan(0.5);
    expect(said).toHaveLength(1);
  });
});

describe('toolkenNumbersMeaning', () => {
  const epoch = (e: number, recall: number | null) => ({ epoch: e, trainLoss: 3, valLoss: 3, valToolkenRecall: recall, valFalseFire: 0 });

  it('reads k from the kept epoch, and the last epoch when the start was kept', () => {
    const positions = { train: 900, val: 100, trainToolken: 90, valToolken: 40 };
    const history = [epoch(1, 0.5), epoch(2, 0.75), epoch(3, 0.25)];
    expect(toolkenNumbersMeaning({ positions, history, bestEpoch: 2 })[0]).toContain('30 of 40 at epoch 2, the kept one (95 % interval 59.8 %–85.8 %)');
    expect(toolkenNumbersMeaning({ positions, history, bestEpoch: 0 })[0]).toContain('10 of 40 at epoch 3 (');
    expect(toolkenNumbersMeaning({ positions, history, bestEpoch: 2 })[0]).toContain('the 60 held-out word positions');
  });

  it('says when no call was held out', () => {
    const lines = toolkenNumbersMeaning({ positions: { train: 50, val: 0, trainToolken: 3, valToolken: 0 }, history: [epoch(1, null)], bestEpoch: 1 });
    expect(lines[0]).toMatch(/^toolkens: no call was held out \(0 held-out positions\): recall says nothing here/);
    expect(lines[1]).toMatch(/^toolkens: 3 calls to learn from: train on more calls/);
  });
});
