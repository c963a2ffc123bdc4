import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TINY_LLAMA_DIR } from '../../onnx-export/tiny-llama.ts';
import { hubCacheDir, resolveModel } from './hf-cache.ts';
import { loadModel } from './load-model.ts';
import { ROOT, runCli } from '../testing/cli-child.ts';
import { TEST_CAP_MS } from '../testing/progress.ts';

/**
 * A fake Hugging Face cache laid out as huggingface_hub writes it:
 *   <HF_HOME>/hub/models--test-org--tiny-llama/refs/main           → REV
 *   <HF_HOME>/hub/models--test-org--tiny-llama/snapshots/OLD/…      an older revision (must not be picked)
 *   <HF_HOME>/hub/models--test-org--tiny-llama/snapshots/REV/…      models/tiny-llama
 *   <HF_HOME>/hub/models--test-org--t5-small/snapshots/ONE/…        an encoder-decoder config (unsupported)
 */
const tmp = mkdtempSync(join(tmpdir(), 'hf-cache-'));
const HF_HOME = join(tmp, 'hf');
const REV = '0123456789abcdef0123456789abcdef01234567';
const repo = join(HF_HOME, 'hub/models--test-org--tiny-llama');
cpSync(TINY_LLAMA_DIR, join(repo, 'snapshots', REV), { recursive: true });
mkdirSync(join(repo, 'snapshots/OLD'), { recursive: true });
mkdirSync(join(repo, 'refs'));
writeFileSync(join(repo, 'refs/main'), REV);
const t5 = join(HF_HOME, 'hub/models--test-org--t5-small/snapshots/ONE');
cpSync(TINY_LLAMA_DIR, t5, { recursive: true });
writeFileSync(join(t5, 'config.json'), JSON.stringify({ architectures: ['T5ForConditionalGeneration'], model_type: 't5', is_encoder_decoder: true }));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const env = { HF_HOME };

describe('resolveModel', () => {
  it('finds an org/name id through refs/main in $HF_HOME/hub', async () => {
    expect(await resolveModel('test-org/tiny-llama', env)).toEqual({
      dir: join(repo, 'snapshots', REV),
      cache: { id: 'test-org/tiny-llama', revision: REV },
    });
  });

  it('uses HF_HUB_CACHE over HF_HOME, and ~/.cache/huggingface/hub by default', () => {
    expect(hubCacheDir({ HF_HOME: '/a', HF_HUB_CACHE: '/b' })).toBe('/b');
    expect(hubCacheDir({ HF_HOME: '/a' })).toBe('/a/hub');
    expect(hubCacheDir({})).toMatch(/\.cache\/huggingface\/hub$/);
  });

  it('takes an existing directory as a path, even when it looks like an id', async () => {
    expect(await resolveModel('models/tiny-llama', env)).toEqual({ dir: join(ROOT, 'models/tiny-llama') });
  });

  it('names the cache and the models it holds when an id is not there (nothing is downloaded)', async () => {
    const { notInCache } = await resolveModel('HuggingFaceTB/SmolLM2-135M', env);
    expect(notInCache).toBe(
      `HuggingFaceTB/SmolLM2-135M is not in the Hugging Face cache at ${join(HF_HOME, 'hub')} either ` +
        '(it holds test-org/t5-small, test-org/tiny-llama; set HF_HOME or HF_HUB_CACHE; nothing is downloaded)',
    );
  });
});

describe('loadModel with --dtype and cache ids', () => {
  it('a missing dtype file is one line listing what the directory has', async () => {
    const prev = process.env.HF_HOME;
    process.env.HF_HOME = HF_HOME;
    try {
      const error = (await loadModel('test-org/tiny-llama', { dtype: 'q4' }).catch((e: Error) => e)) as Error;
      expect(error.message).not.toContain('\n');
      expect(error.message).toContain(`cannot load model from ${join(repo, 'snapshots', REV)}: missing onnx/model_q4.onnx (--dtype q4; this model has --dtype fp32).`);
      expect(error.message).toContain('The directory has: config.json, generation_config.json, onnx/{model.onnx}, tokenizer.json, tokenizer_config.json.');
      const t5Error = (await loadModel('test-org/t5-small').catch((e: Error) => e)) as Error;
      expect(t5Error.message).toContain('config.json describes T5ForConditionalGeneration, not a decoder-only causal LM');
      expect(t5Error.message).toContain('The directory has: config.json,');
    } finally {
      if (prev === undefined) delete process.env.HF_HOME;
      else process.env.HF_HOME = prev;
    }
  });
});

describe('toolformer annotate --model org/name', () => {
  it('runs on a model from the fake HF cache and records the id and revision', async () => {
    const cwd = join(tmp, 'run');
    mkdirSync(cwd);
    const { code, stderr } = await runCli(
      ['annotate', join(ROOT, 'corpus/sample.jsonl'), '--model', 'test-org/tiny-llama', '--out', 'out', '--max-docs', '1', '--quiet', '--no-lm-proposals'],
      cwd,
      { ...process.env, HF_HOME },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const config = JSON.parse(readFileSync(join(cwd, 'out/config.json'), 'utf8'));
    expect(config.model).toBe(`test-org/tiny-llama@${REV}`);
  }, TEST_CAP_MS); // a whole annotate run in a child process: bounded by its progress (testing/progress.ts)

  it('a model id missing from the cache: exit 1, one line', async () => {
    const { code, stderr } = await runCli(
      ['annotate', join(ROOT, 'corpus/sample.jsonl'), '--model', 'test-org/absent', '--out', 'out2', '--quiet'],
      tmp,
      { ...process.env, HF_HOME },
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/^toolformer: cannot load model from .*test-org\/absent: no such directory, and test-org\/absent is not in the Hugging Face cache at [^\n]*\n$/);
  }, TEST_CAP_MS);
});
