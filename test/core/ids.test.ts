import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ID_PATTERN, idForSeq, MAX_DERIVED_SEQ, randomId, seqForId } from '../../src/core/ids';

const seqs = fc.integer({ min: 1, max: MAX_DERIVED_SEQ });
const salts = fc.integer({ min: 0, max: MAX_DERIVED_SEQ });

describe('lock ids derived from the row key', () => {
  it('are 8 characters of [0-9a-z] and decode back to their key, over the whole range of keys and salts', () => {
    fc.assert(
      fc.property(seqs, salts, (seq, salt) => {
        const id = idForSeq(seq, salt);
        expect(id).toMatch(ID_PATTERN);
        expect(seqForId(id, salt)).toBe(seq);
      }),
      { numRuns: 2000 },
    );
    for (const seq of [1, 2, 35, 36, 1_000_000, MAX_DERIVED_SEQ - 1, MAX_DERIVED_SEQ]) {
      for (const salt of [0, 1, MAX_DERIVED_SEQ]) expect(seqForId(idForSeq(seq, salt), salt)).toBe(seq);
    }
  });

  it('differ for different keys, and neighbours look nothing alike', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => idForSeq(i + 1, 12345));
    expect(new Set(ids).size).toBe(ids.length);
    // A typo in one character of one id should not name the lock granted just before or after it.
    for (let i = 1; i < ids.length; i++) {
      const differing = [...ids[i]!].filter((char, k) => char !== ids[i - 1]![k]).length;
      expect(differing, `${ids[i - 1]} → ${ids[i]}`).toBeGreaterThan(1);
    }
  });

  it('differ between databases: another salt gives the same key another id, which decodes to another key there', () => {
    fc.assert(
      fc.property(seqs, salts, salts, (seq, salt, otherSalt) => {
        fc.pre(salt !== otherSalt);
        const id = idForSeq(seq, salt);
        expect(idForSeq(seq, otherSalt)).not.toBe(id);
        expect(seqForId(id, otherSalt)).not.toBe(seq);
      }),
    );
  });

  it('every id decodes to a key whose id it is (decoding is onto the id space)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-z]{8}$/), salts, (id, salt) => {
        const seq = seqForId(id, salt)!;
        if (seq === 0) return; // the one id that names no key: no row has key 0
        expect(idForSeq(seq, salt)).toBe(id);
      }),
    );
  });

  it('refuses what is not an id, and keys outside the derived range', () => {
    for (const text of ['', 'abc', 'ABCDEFGH', 'abcdefghi', 'abcd-fgh', ' abcdefg']) expect(seqForId(text, 7)).toBeUndefined();
    for (const seq of [0, -1, MAX_DERIVED_SEQ + 1, 1.5, Number.NaN]) expect(() => idForSeq(seq, 7)).toThrow(RangeError);
  });

  it('random ids (the fallback) have the same form', () => {
    for (let i = 0; i < 100; i++) expect(randomId()).toMatch(ID_PATTERN);
  });
});
