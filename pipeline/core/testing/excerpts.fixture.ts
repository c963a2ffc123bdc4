/**
 * Real excerpts from corpus/sample.jsonl, verbatim, for the tests of the span finders, pre-filters, positions,
 * proposers and the leakage guard (inlined so the tests also run in a browser, without a file system).
 */
import type { Doc } from '../document.ts';

/** sotu/1827-john-quincy-adams-dr/023, chars 150–547: a sum stated in the text (21,226,000 + 5,774,000). */
export const ADAMS_1827: Doc = {
  id: 'sotu/1827-john-quincy-adams-dr/023',
  date: '1827-01-01',
  text:
    'public debt by the annual $10,000,000 devoted to that object by the act of March 3d, 1817. The amount of duties ' +
    'secured on merchandise imported from the commencement of the year until September 30th, 1827 is $21,226,000, and ' +
    'the probably amount of that which will be secured during the remainder of the year is $5,774,000, forming a sum ' +
    'total of $27,000,000.',
};

/** sotu/1867-andrew-johnson-nu/054, chars 230–712: a difference (19,978,693 − 19,235,483 = 743,210) and dates. */
export const JOHNSON_1867: Doc = {
  id: 'sotu/1867-andrew-johnson-nu/054',
  date: '1867-01-01',
  text:
    ' receipts of the Department for the year ending June 30, 1867, including all special appropriations for sea and ' +
    'land service and for free mail matter, were $19,978,693. The expenditures for all purposes were $19,235,483, ' +
    'leaving an unexpended balance in favor of the Department of $743,210, which can be applied toward the expenses ' +
    'of the Department for the current year. The increase of postal revenue, independent of specific appropriations, ' +
    'for the year 1867 over that of 1866 was $850,040.',
};

/** sotu/1868-andrew-johnson-nu/037, chars 0–400: capitals and countries. */
export const JOHNSON_1868: Doc = {
  id: 'sotu/1868-andrew-johnson-nu/037',
  date: '1868-01-01',
  text:
    'That important negotiation, however, has thus far been without result. Charles A. Washburn, late United States ' +
    'minister to Paraguay, having resigned, and being desirous to return to the United States, the rear-admiral ' +
    'commanding the South Atlantic Squadron was early directed to send a ship of war to Asuncion, the capital of ' +
    'Paraguay, to receive Mr. Washburn and his family and remove them from a si',
};

/** factbook/north-america/mx/government/0, chars 700–1000: Spanish names, each followed by an English gloss. */
export const MEXICO_ANTHEM: Doc = {
  id: 'factbook/north-america/mx/government/0',
  date: '2015-01-01',
  text:
    'white, red\nNational anthem: name: "Himno Nacional Mexicano" (National Anthem of Mexico); lyrics/music: ' +
    'Francisco Gonzalez BOCANEGRA/Jaime Nuno ROCA; note: adopted 1943, in use since 1854; also known as ' +
    '"Mexicanos, al grito de Guerra" (Mexicans, to the War Cry); according to tradition, Francisco Gonz',
};

/** factbook/europe/sp/government/0, chars 0–260. */
export const SPAIN_GOVERNMENT: Doc = {
  id: 'factbook/europe/sp/government/0',
  date: '2015-01-01',
  text:
    'Spain: Government.\nCountry name: conventional long form: Kingdom of Spain; conventional short form: Spain; local ' +
    'long form: Reino de Espana; local short form: Espana\nGovernment type: parliamentary monarchy\nCapital: name: ' +
    'Madrid; geographic coordinates: 40 24 N',
};

/** sotu/1790-george-washington-n/000, chars 0–335: prose without numbers, dates or foreign text. */
export const WASHINGTON_1790: Doc = {
  id: 'sotu/1790-george-washington-n/000',
  date: '1790-01-01',
  text:
    'Fellow-Citizens of the Senate and House of Representatives: In meeting you again I feel much satisfaction in ' +
    'being able to repeat my congratulations on the favorable prospects which continue to distinguish our public ' +
    'affairs. The abundant fruits of another year have blessed our country with plenty and with the means of a ' +
    'flourishing commerce.',
};
