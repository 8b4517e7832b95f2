// Lock ids: 8 characters of [0-9a-z] (CONTRACT.md), short enough to type, wide enough not to collide.
//
// A lock's id is derived from its seq, the store's integer key for the row, by a permutation of the 36^8
// id space: multiply by a constant, add the database's own salt. The store then needs no index on id (an
// id decodes back to the row's key); neighbouring seqs get ids that look nothing alike, so a typo in one
// lock's id does not name the lock granted next; and the salt gives every database its own ids, so a
// `verify ID TOKEN` run against the wrong database finds nothing rather than that database's lock with
// the same seq.
const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const SPACE = 36n ** 8n;
// Coprime with 36 (odd, not a multiple of 3), so multiplying by it modulo 36^8 permutes the id space.
const SCATTER = 1_964_120_384_977n;
const UNSCATTER = inverseModulo(SCATTER, SPACE);

export const ID_PATTERN = /^[0-9a-z]{8}$/;
/** The largest seq that has a derived id; also the largest salt. */
export const MAX_DERIVED_SEQ = Number(SPACE) - 1;

export function idForSeq(seq: number, salt: number): string {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > MAX_DERIVED_SEQ) throw new RangeError(`seq ${seq} has no derived id`);
  return ((BigInt(seq) * SCATTER + BigInt(salt)) % SPACE).toString(36).padStart(8, '0');
}

// The seq whose derived id this is in the database with this salt; undefined for text that is not an id.
export function seqForId(id: string, salt: number): number | undefined {
  if (!ID_PATTERN.test(id)) return undefined;
  return Number((((BigInt(parseInt(id, 36)) - BigInt(salt) + SPACE) % SPACE) * UNSCATTER) % SPACE);
}

let generate: (() => string) | undefined;

// A random id, for the rare lock whose derived id is already taken by a stored one (see store/locks.ts).
// nanoid (and the crypto module under it) is loaded only then.
export function randomId(): string {
  generate ??= (require('nanoid') as typeof import('nanoid')).customAlphabet(ALPHABET, 8);
  return generate();
}

function inverseModulo(a: bigint, m: bigint): bigint {
  let [oldR, r] = [a % m, m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) throw new Error('not invertible');
  return ((oldS % m) + m) % m;
}
