import { describe, expect, it } from 'vitest';
import { JOHNSON_1868, SPAIN_GOVERNMENT, WASHINGTON_1790 } from '../../testing/excerpts.fixture.ts';
import { findEntities } from './entities.ts';

describe('findEntities', () => {
  it('finds names, joins initials, strips titles and drops generic words', () => {
    expect(findEntities(JOHNSON_1868.text).map((e) => e.text)).toEqual([
      'Charles A. Washburn',
      'United States',
      'Paraguay',
      'United States',
      'South Atlantic Squadron',
      'Asuncion',
      'Paraguay',
      'Washburn', // from "Mr. Washburn"
    ]);
  });

  it('finds nothing in an address opening made of institutions and sentence openers', () => {
    expect(findEntities(WASHINGTON_1790.text)).toEqual([]);
  });

  it('keeps a title word that heads the text ("Spain: Government.")', () => {
    expect(findEntities(SPAIN_GOVERNMENT.text).map((e) => e.text)).toEqual([
      'Spain',
      'Kingdom of Spain',
      'Spain',
      'Reino de Espana',
      'Espana',
      'Madrid',
    ]);
  });
});

describe('findEntities and digits', () => {
  it('takes no name from a token glued to digits ("FY2014/15")', () => {
    expect(findEntities('Fiscal year: FY2014/15 budget of Saint Helena').map((e) => e.text)).toEqual(['Saint Helena']);
  });
});
