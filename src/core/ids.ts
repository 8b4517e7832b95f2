// Lock ids: 8 characters of [0-9a-z] (CONTRACT.md), short enough to type, wide enough not to collide.
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

let generate: (() => string) | undefined;

// nanoid (and the crypto module under it) is loaded on the first new grant only: a hook that merely
// renews its lock never needs an id.
export function newId(): string {
  generate ??= (require('nanoid') as typeof import('nanoid')).customAlphabet(ALPHABET, 8);
  return generate();
}

export const ID_PATTERN = /^[0-9a-z]{8}$/;
