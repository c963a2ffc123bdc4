import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../core/config.ts';
import { createPipelineParts } from '../core/parts.ts';
import { paperPrompt } from '../core/prompts.ts';
import { FakeLM } from '../core/testing/fake-lm.ts';
import type { ToolSpec } from '../core/tools/spec.ts';
import { runAnnotate } from './annotate-run.ts';

// An LM that, after " [", writes "x" forever: no sample ever closes as a call.
const lm = new FakeLM((context, next) => (context.endsWith(' [') || context.endsWith('x') ? (next === 'x' ? 0.9 : undefined) : undefined));
const spec: ToolSpec = {
  name: 'Add',
  description: 'adds',
  parameters: { type: 'object', properties: { sum: { type: 'string', maxLength: 20 } }, required: ['sum'], additionalProperties: false },
  argument: { syntax: 'raw', property: 'sum' },
  create: () => ({ run: async () => ({ ok: false, error: 'never called' }) }),
  prompt: paperPrompt('Add', 'Add numbers.', { input: '1 and 2 make 3', output: '1 and 2 make [Add(1 + 2)] 3' }),
  thresholds: { tauS: 0, tauF: 0.5, k: 2, m: 2 },
};

describe('the sampling gate in a run', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'gate-'));
  const corpus = join(tmp, 'docs.jsonl');
  writeFileSync(corpus, [1, 2, 3, 4, 5].map((i) => JSON.stringify({ id: `d${i}`, text: `We had ${i}0 and then 2 more, so the total is ${i}2 today.` })).join('\n') + '\n');
  const config = { ...defaultConfig({ tools: ['Add'] }), samplingGate: { minSamples: 6, minParseRate: 0.5 } };
  config.thresholds.Add = { ...spec.thresholds };
  const run = async (out: string, extra: { maxDocs?: number; resume?: boolean; force?: boolean } = {}) => {
    const notices: string[] = [];
    const stats = await runAnnotate(createPipelineParts({ lm, resources: {}, specs: [spec] }), {
      inputs: [corpus],
      outDir: join(tmp, out),
      meta: {},
      config: extra.force ? { ...config, samplingGate: null } : config,
      maxDocs: extra.maxDocs,
      resume: extra.resume,
      onNotice: (m) => notices.push(m),
    });
    return { stats, notices };
  };

  it('stops sampling for a tool once its first samples never parse, says so once, and reports the parse rate', async () => {
    const { stats, notices } = await run('a');
    // 4 samples per document (k 2 × m 2): after 2 documents, 8 ≥ 6 samples and none parsed.
    expect(stats.tools.Add.lmSampling).toEqual({ samples: 8, parsed: 0, parseRate: 0, stoppedAtDoc: 2 });
    expect(notices).toEqual(['Add: 0 of 8 LM-sampled calls parsed as a call; no more sampling for Add in this run (--force-lm-sampling samples throughout)']);
    const stored = JSON.parse(readFileSync(join(tmp, 'a', 'stats.json'), 'utf8'));
    expect(stored.tools.Add.lmSampling.parseRate).toBe(0);
  });

  it('samples throughout when forced', async () => {
    const { stats, notices } = await run('b', { force: true });
    expect(stats.tools.Add.lmSampling).toEqual({ samples: 20, parsed: 0, parseRate: 0 });
    expect(notices).toEqual([]);
  });

  it('stops at the same document after a resume, so the files are identical', async () => {
    await run('c', { maxDocs: 1 });
    await run('c', { resume: true });
    for (const f of ['calls.jsonl', 'train.jsonl', 'stats.json']) expect(readFileSync(join(tmp, 'c', f), 'utf8')).toBe(readFileSync(join(tmp, 'a', f), 'utf8'));
  });
});
