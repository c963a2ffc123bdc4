import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEldDetector } from '../../core/tools/translate/language-id.ts';
import { Translate } from '../../core/tools/translate/translate.ts';
import { skipUnlessInstalled } from '../testing/system-requirement.ts';
import { cleanOutput, createApertiumEngine, modesIntoEnglish, runProcess } from './apertium.ts';
import { ModePipeline } from './apertium-pipeline.ts';

const engine = await createApertiumEngine();
const missing = engine.unavailable;
const ctx = { doc: { id: 'd' } };

describe('apertium: pure parts', () => {
  it('keeps plain pairs into English only', () => {
    expect(modesIntoEnglish(['eng-spa', 'spa-eng_US', 'spa-eng', 'eo-en-bytecode', 'eo-en', 'hbs-eng', 'Cyrl-Latn'])).toEqual({
      es: 'spa-eng',
      eo: 'eo-en',
      hr: 'hbs-eng',
      sr: 'hbs-eng',
      bs: 'hbs-eng',
    });
  });
  it('drops Apertium error marks', () => {
    expect(cleanOutput('the #dog @gato\n')).toBe('the dog gato');
    expect(cleanOutput('C# and a@b')).toBe('C# and a@b');
  });
  it('a missing binary is an unavailable engine, not a crash', async () => {
    const none = await createApertiumEngine({ binary: '/nonexistent/apertium' });
    expect(none.languages).toEqual([]);
    expect(none.unavailable).toMatch(/not runnable: .*ENOENT/);
    const result = await new Translate({ detector: createEldDetector(), engine: none }).run('la casa es grande', ctx);
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/^translation engine not installed/) });
  });
  it('runProcess enforces the timeout and the output cap, and kills the process', async () => {
    // Without the timeout `sleep 30` would exit 0 and the promise would resolve: rejects() fails the test.
    await expect(runProcess('sleep', ['30'], '', { timeoutMs: 200, maxOutputBytes: 100 })).rejects.toThrow(/timed out/);
    await expect(runProcess('yes', [], '', { timeoutMs: 5000, maxOutputBytes: 10_000 })).rejects.toThrow(/output larger/);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expect(runProcess('sleep', ['30'], '', { timeoutMs: 5000, maxOutputBytes: 100, signal: controller.signal })).rejects.toThrow(/aborted/);
  });
});

describe.skipIf(skipUnlessInstalled('apertium binary', missing))('apertium binary', () => {
  const tool = new Translate({ detector: createEldDetector(), engine });
  it('lists the installed pairs into English', () => {
    expect(engine.languages).toEqual(expect.arrayContaining(['es', 'ca']));
    expect(engine.modes.es).toBe('spa-eng');
  });
  it('translates Spanish and Catalan into English', async () => {
    expect(await tool.run('La casa es grande.', ctx)).toEqual({ ok: true, value: 'The house is big.' });
    const ca = await tool.run('Bon dia a tots', ctx);
    expect(ca.ok).toBe(true);
    if (ca.ok) expect(ca.value).toMatch(/^Good morning/);
  });
  it('shell metacharacters reach Apertium as text, never as commands', async () => {
    const marker = `/tmp/toolformer-apertium-${process.pid}`;
    const hostile = `hola $(touch ${marker}) \`touch ${marker}\`; touch ${marker} | cat && echo > ${marker}`;
    const result = await engine.translate(hostile, 'es');
    expect(result).toContain('$(touch');
    expect(existsSync(marker)).toBe(false);
  });
  it('a mode kept running answers as the launcher does, call after call, calls at once included', async () => {
    const launcher = await createApertiumEngine({ binary: 'apertium' }); // a named launcher: started per call
    const texts: [string, string][] = [
      ['Reino de Espana', 'es'],
      ['DE VERA y Pintado/Ramon CARNICER y Battle', 'es'],
      ['Mexicanos, al grito de Guerra', 'es'],
      ['hola [mundo] ^$@<>{} \\ fin', 'es'],
      ['Bon dia a tots', 'ca'],
      ['La casa es grande.', 'es'],
    ];
    const expected = [];
    for (const [text, lang] of texts) expected.push(await launcher.translate(text, lang));
    expect(expected[0]).toBe('Realm of Espana');
    expect(await Promise.all(texts.map(([text, lang]) => engine.translate(text, lang)))).toEqual(expected);
  });
  it('a pipeline killed by a timeout or stopped starts afresh on the next call', async () => {
    const pipeline = new ModePipeline(`${process.env.APERTIUM_DATADIR ?? '/usr/share/apertium'}/modes/spa-eng.mode`);
    const limits = { timeoutMs: 15_000, maxOutputBytes: 65_536 };
    expect(await pipeline.translate('La casa es grande.', limits)).toBe('The house is big.');
    pipeline.stop();
    expect(await pipeline.translate('La casa es grande.', limits)).toBe('The house is big.');
    await expect(pipeline.translate('El perro come la manzana roja.', { ...limits, timeoutMs: 1 })).rejects.toThrow(/timed out/);
    expect(await pipeline.translate('El perro come la manzana roja.', limits)).toBe('The dog eats the red apple.');
    pipeline.stop();
  });
});
