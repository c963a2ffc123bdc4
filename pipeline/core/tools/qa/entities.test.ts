import { describe, expect, it } from 'vitest';
import { JOHNSON_1868, SPAIN_GOVERNMENT, WASHINGTON_1790 } from '../../testing/excerpts.fixture.ts';
import { findEntities } from './entities.ts';

describe('findEntities', () => {
  // Each case: what it shows, the excerpt, and the entities found, in order ("Washburn" last is from "Mr. Washburn").
  it.each([
    ['finds names, joins initials, strips titles and drops generic words', JOHNSON_1868, ['Charles A. Washburn', 'United States', 'Paraguay', 'United States', 'South Atlantic Squadron', 'Asuncion', 'Paraguay', 'Washburn']],
    ['finds nothing in an address opening made of institutions and sentence openers', WASHINGTON_1790, []],
    ['keeps a title word that heads the text ("Spain: Government.")', SPAIN_GOVERNMENT, ['Spain', 'Kingdom of Spain', 'Spain', 'Reino de Espana', 'Espana', 'Madrid']],
  ])('%s', (_shows, excerpt, entities) => {
    expect(findEntities(excerpt.text).map((e) => e.text)).toEqual(entities);
  });
});

describe('findEntities and digits', () => {
  it('takes no name from a token glued to digits ("FY2014/15")', () => {
    expect(findEntities('Fiscal year: FY2014/15 budget of Saint Helena').map((e) => e.text)).toEqual(['Saint Helena']);
  });
});
