import { describe, expect, it } from 'vitest';
import { positionBefore, positionBeforePhrase, wordAround } from './boundaries.ts';

const TEXT = 'Languages: Hindi 41%, Bengali 8.1%, Indian English; India is large.';

describe('wordAround: the word a position splits', () => {
  it('names the word when letters or digits are on both sides', () => {
    const at = TEXT.indexOf('Hindi') + 2;
    expect(wordAround(TEXT, at)).toEqual({ word: 'Hindi', start: TEXT.indexOf('Hindi'), end: TEXT.indexOf('Hindi') + 5 });
    expect(wordAround(TEXT, TEXT.indexOf('41') + 1)?.word).toBe('41');
  });

  it('is null at a word\'s edges, between a word and punctuation, and at the text\'s ends', () => {
    const hindi = TEXT.indexOf('Hindi');
    for (const at of [0, hindi - 1, hindi, hindi + 5, TEXT.indexOf('%'), TEXT.indexOf('8.1') + 1, TEXT.length]) {
      expect(wordAround(TEXT, at)).toBeNull();
    }
  });
});

describe('positionBeforePhrase: where a call goes to come before a phrase', () => {
  it('is positionBefore the first whole-word occurrence, the end of the word before it', () => {
    const hit = positionBeforePhrase(TEXT, 'Hindi');
    expect(hit).toEqual({ at: positionBefore(TEXT, TEXT.indexOf('Hindi')), offset: TEXT.indexOf('Hindi'), occurrences: 1 });
    expect(TEXT.slice(0, hit!.at)).toBe('Languages:');
  });

  it('skips occurrences glued to a letter or digit: "India" is not the start of "Indian"', () => {
    const hit = positionBeforePhrase(TEXT, 'India');
    expect(hit?.offset).toBe(TEXT.indexOf('India is'));
    expect(hit?.occurrences).toBe(1);
    expect(positionBeforePhrase(TEXT, 'ndi')).toBeNull();
  });

  it('counts every whole-word occurrence; a phrase of punctuation matches anywhere', () => {
    expect(positionBeforePhrase('41% and 8.1%', '%')?.occurrences).toBe(2);
    expect(positionBeforePhrase('a b a', 'a')).toEqual({ at: 0, offset: 0, occurrences: 2 });
  });

  it('is null for an empty phrase or one not in the text', () => {
    expect(positionBeforePhrase(TEXT, '')).toBeNull();
    expect(positionBeforePhrase(TEXT, 'Tamil')).toBeNull();
  });
});
