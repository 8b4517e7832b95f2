// Lock ids: 8 characters of [0-9a-z] (README, Concepts), short enough to type. 36^8 ≈ 2.8e12 ids, so two
// locks of one database share one only by a rare collision, which the store resolves by drawing again.
const SPACE = 36 ** 8;

export const ID_PATTERN = /^[0-9a-z]{8}$/;

/** A source of uniform random integers in [0, bound): crypto's by default, a fixed sequence in tests. */
export type RandomInt = (bound: number) => number;

// base 36 of a uniform draw from the whole space, zero-padded: every id equally likely.
export function randomId(draw: RandomInt = cryptoRandomInt): string {
  return draw(SPACE).toString(36).padStart(8, '0');
}

// Node's crypto module is loaded on the first draw, not with the bundle: loading it costs a process
// about 2 ms, which a hook that only renews its lock should not pay.
function cryptoRandomInt(bound: number): number {
  return (require('node:crypto') as typeof import('node:crypto')).randomInt(bound);
}
