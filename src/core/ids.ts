// Lock ids: 8 characters of [0-9a-z] (README, Concepts), short enough to type. 36^8 ≈ 2.8e12 ids, so two
// locks of one database share one only by a rare collision, which the store resolves by drawing again.
const SPACE = 36 ** 8;

export const ID_PATTERN = /^[0-9a-z]{8}$/;

/** A source of uniform random integers in [0, bound): Math.random by default, a fixed sequence in tests. */
export type RandomInt = (bound: number) => number;

// base 36 of a uniform draw from the whole space, zero-padded: every id equally likely.
export function randomId(draw: RandomInt = mathRandomInt): string {
  return draw(SPACE).toString(36).padStart(8, '0');
}

// Math.random, not node:crypto: an id must be unique (the store's UNIQUE index and redraw see to that), not
// secret (holding a lock is proved by owner and token), and loading crypto cost every new-lock hook call
// about 2.5 ms of CPU (README, Performance). Node seeds Math.random from the OS per process, so two agents
// starting together still draw differently; its 52 random bits cover the 41-bit id space evenly.
function mathRandomInt(bound: number): number {
  return Math.floor(Math.random() * bound);
}
