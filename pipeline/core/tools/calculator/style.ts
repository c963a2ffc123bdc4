import { styleFor, writeNumber } from '../../text/number-style.ts';

/**
 * The Calculator's result as the text writes numbers (spec `styleResult`). A sum or difference takes the style of
 * its operands as the text wrote them — currency sign, unit, decimals, thousands grouping ("$343,697 − $261,209.70"
 * → "$82,487.30"); a percentage of an amount (`n * p / 100`) takes the amount's; any other result (a ratio, a
 * product) keeps the tool's rounding and only groups thousands as the text does.
 */
export function styleCalculatorResult(result: string, input: string, prefix: string): string {
  const value = Number(result);
  if (!Number.isFinite(value)) return result;
  const operands = (input.match(/\d+(?:\.\d+)?/g) ?? []).map(Number);
  const additive = /^[\d.\s+\-()]+$/.test(input);
  const percentOf = /^\s*(\d+(?:\.\d+)?)\s*\*\s*\d+(?:\.\d+)?\s*\/\s*100\s*$/.exec(input);
  if (additive) return writeNumber(value, styleFor(operands, prefix));
  const decimals = (result.split('.')[1] ?? '').length;
  if (percentOf) return writeNumber(value, { ...styleFor([Number(percentOf[1])], prefix), decimals });
  const { grouped } = styleFor(operands, prefix);
  return writeNumber(value, { grouped, decimals, currency: '', unit: '' });
}
