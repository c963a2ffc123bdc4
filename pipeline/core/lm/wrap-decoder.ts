/**
 * A CausalLM that is another one in every member but one: its decoder states report the tokens fed after the prompt.
 * Derived from the object itself (a Proxy), not from a hand-written list of CausalLM's members, so a member added to
 * the interface — or a HiddenStateLM's hiddenSize and hiddenStates — passes through unchanged.
 */
import type { CausalLM, DecodeState } from './lm.ts';

/**
 * `lm` whose openDecoder() states call `onFed(total)` after every feed(), `total` the tokens fed since the prompt
 * (chosen ones and inserted tool results: what generate()'s maxNewTokens counts). A backend without a decoder stays one.
 */
export function withDecoderFeeds<L extends CausalLM>(lm: L, onFed: (total: number) => void): L {
  const open = lm.openDecoder?.bind(lm);
  return new Proxy(lm, {
    get(target, member) {
      if (member === 'openDecoder' && open) {
        return async (prompt: readonly number[]): Promise<DecodeState> => countingFeeds(await open(prompt), onFed);
      }
      const value: unknown = Reflect.get(target, member, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `state`, with every feed() counted. */
function countingFeeds(state: DecodeState, onFed: (total: number) => void): DecodeState {
  let fed = 0;
  return new Proxy(state, {
    get(target, member) {
      if (member === 'feed') {
        return async (ids: readonly number[]) => {
          await target.feed(ids);
          fed += ids.length;
          onFed(fed);
        };
      }
      const value: unknown = Reflect.get(target, member, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
