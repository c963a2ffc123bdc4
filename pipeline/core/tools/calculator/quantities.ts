import { dropOverlapping, findDates, findNumbers, type NumberSpan } from '../../text/spans.ts';

/**
 * Numbers that are quantities: not years and not part of a date expression ("June 30, 1867" holds no quantity).
 * What the Calculator pre-filter, positions and proposer work with.
 */
export function findQuantities(text: string): NumberSpan[] {
  const dates = findDates(text);
  return dropOverlapping(findNumbers(text), dates).filter((n) => !n.year);
}
