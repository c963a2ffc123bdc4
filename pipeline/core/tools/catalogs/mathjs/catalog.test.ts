/**
 * The mathjs catalog: ≥ 200 of mathjs's documented functions as tools, each documented from mathjs's own docs, each
 * with an object schema the registry compiles; calls run under the Calculator's rules (sandbox.ts).
 */
import * as mathjs from 'mathjs';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../registry.ts';
import { CATALOGS, catalogNamed } from '../index.ts';
import { NOT_SERVED, mathjsSpecs } from './index.ts';
import { MAX_ARGUMENTS_LENGTH, runMathjs } from './sandbox.ts';

describe('mathjs catalog', () => {
  const specs = mathjsSpecs();

  it("serves mathjs's documented functions but the ones NOT_SERVED names, under mathjs's names", () => {
    const docs = (mathjs as unknown as { docs: Record<string, { name: string }> }).docs;
    const documented = Object.keys(docs).filter((n) => docs[n].name === n && typeof (mathjs as unknown as Record<string, unknown>)[n] === 'function');
    expect(documented).toHaveLength(237);
    expect(specs.length).toBeGreaterThanOrEqual(200);
    expect(specs.map((s) => s.name).sort()).toEqual(documented.filter((n) => !Object.hasOwn(NOT_SERVED, n)).sort());
    for (const name of ['evaluate', 'parse', 'compile', 'createUnit', 'simplify', 'map']) expect(specs.some((s) => s.name === name)).toBe(false);
  });

  it('each tool: an object schema the registry compiles, a description and the docs mathjs ships', () => {
    const registry = new ToolRegistry(specs);
    expect(registry.names).toHaveLength(specs.length);
    const gcd = registry.get('gcd')!;
    expect(gcd.parameters).toEqual({
      type: 'object',
      properties: { args: { type: 'string', description: expect.stringContaining('gcd(a, b)') } },
      required: ['args'],
      additionalProperties: false,
    });
    expect(gcd.description).toBe('Compute the greatest common divisor. mathjs Arithmetic: gcd(a, b); gcd(a, b, c, ...).');
    expect(gcd.documentation).toEqual({ category: 'Arithmetic', syntax: ['gcd(a, b)', 'gcd(a, b, c, ...)'], examples: ['gcd(8, 12)', 'gcd(-4, 6)', 'gcd(25, 15, -10)'], seeAlso: ['lcm', 'xgcd'] });
    for (const spec of specs) {
      expect(spec.parameters.type).toBe('object');
      expect(spec.description.length).toBeGreaterThan(10);
    }
    expect(catalogNamed('mathjs')).toBe(CATALOGS[0]);
    expect(() => catalogNamed('numpy')).toThrow('unknown catalog "numpy" (known: mathjs)');
  });

  it('runs a call as mathjs would: numbers, matrices, units, strings', async () => {
    const registry = new ToolRegistry(specs);
    const run = (name: string, args: string) => registry.get(name)!.run(args, { doc: { id: 'd' } });
    expect(await run('gcd', '8, 12')).toEqual({ ok: true, value: '4' });
    expect(await run('det', '[1, 2; 3, 4]')).toEqual({ ok: true, value: '-2' });
    expect(await run('to', '5 cm, inch')).toEqual({ ok: true, value: '1.9685039370079 inch' });
    expect(await run('median', '1, 2, 3, 4')).toEqual({ ok: true, value: '2.5' });
    expect(await run('combinations', '7, 5')).toEqual({ ok: true, value: '21' });
    expect(await run('format', 'pi, 3')).toEqual({ ok: true, value: '3.14' });
    expect(await run('subset', '[1, 2, 3], index(2)')).toEqual({ ok: true, value: '2' });
    // Seeded: the same call gives the same number, and it is a number in the range (two failures alike do not pass).
    const drawn = await run('random', '1, 10');
    expect(drawn).toMatchObject({ ok: true });
    const x = Number(drawn.ok ? drawn.value : NaN);
    expect(x >= 1 && x <= 10).toBe(true);
    expect(await run('random', '1, 10')).toEqual(drawn);
  });

  it('refuses what the Calculator refuses, with a reason, before anything is evaluated', () => {
    const refusals: [string, string, RegExp][] = [
      ['sqrt', 'import({})', /function "import" not allowed/],
      ['sqrt', 'evaluate("1")', /function "evaluate" not allowed/],
      ['sqrt', 'x', /unknown name "x"/],
      ['add', '3!, 1', /operator "!" not allowed/],
      ['add', '1 == 1, 2', /operator "==" not allowed/],
      ['sqrt', '4) + evaluate("1"', /unbalanced brackets/],
      ['sqrt', 'f(x) = x^2', /functionassignment expressions not allowed/],
      ['add', 'a = 2, 3', /assignment expressions not allowed/],
      ['sqrt', 'x'.repeat(1_000_000), new RegExp(`longer than ${MAX_ARGUMENTS_LENGTH}`)],
      ['sqrt', '['.repeat(50) + ']'.repeat(50), /nested deeper/],
      ['evaluate', '"1 + 1"', /not a served mathjs function/],
      ['createUnit', '"foo"', /not a served mathjs function/],
      ['constructor', '', /not a served mathjs function/],
      ['factorial', 'bignumber(100000)', /"bignumber" not allowed/],
      ['zeros', '10000, 10000', /integers of at most 200/],
      ['stirlingS2', '1000, 500', /integers of at most 200/],
      ['random', '[1000, 1000]', /product is over/],
      ['range', '"1:1e9"', /not strings/],
      ['isPrime', '9007199254740881', /at most 1000000000000/],
      ['setPowerset', `[${Array.from({ length: 20 }, (_, i) => i).join(', ')}]`, /at most 10 elements/],
      ['format', '1, 1000000', /precision of at most 64/],
      // Issue 46: bounds on what the arguments evaluate to, not on their literals.
      ['zeros', '10^5, 10^5', /integers of at most 200/],
      ['identity', '10^5', /integers of at most 200/],
      ['range', '0, 10^9', /integers of at most 200/],
      ['ones', '2^14, 2^14', /integers of at most 200/],
      ['random', '[10^4, 10^4]', /product is over/],
      ['nthRoots', '1, 1e8', /integer root of at most 1000/],
      ['nthRoots', '1, 10^5', /integer root of at most 1000/],
      ['eigs', '[[1, 2], [3, 4]], 0', /precision of at least 1e-15/],
      ['eigs', '[[1, 2], [3, 4]], {precision: 0}', /precision of at least 1e-15/],
      ['isPrime', '2^53 - 111', /at most 1000000000000/],
      ['isPrime', `[${Array.from({ length: 8 }, (_, i) => `2^53 - ${2 * i + 1}`).join(', ')}]`, /at most 1000000000000/],
      ['isPrime', `[${Array.from({ length: 30 }, (_, i) => i).join(', ')}]`, /at most 20 elements/],
      ['zeros', 'NaN, 2', /integers of at most 200/],
      ['format', 'pi, 10^6', /precision of at most 64/],
      ['ones', '100, 200', /result of more than 10000 numbers/],
    ];
    for (const [name, args, reason] of refusals) {
      const result = runMathjs(name, args);
      expect(result.ok, `${name}(${args.slice(0, 30)})`).toBe(false);
      expect(!result.ok && result.error).toMatch(reason);
    }
  });
});
