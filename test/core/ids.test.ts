import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ID_PATTERN, idForSeq, MAX_DERIVED_SEQ, randomId, seqForId } from '../../src/core/ids';

describe('lock ids derived from the row key', () => {
  it('are 8 characters of [0-9a-z] and decode back to their key, over the whole range', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_DERIVED_SEQ }), (seq) => {
        const id = idForSeq(seq);
        expect(id).toMatch(ID_PATTERN);
        expect(seqForId(id)).toBe(seq);
      }),
      { numRuns: 2000 },
    );
    for (const seq of [1, 2, 35, 36, 1_000_000, MAX_DERIVED_SEQ - 1, MAX_DERIVED_SEQ]) expect(seqForId(idForSeq(seq))).toBe(seq);
  });

  it('differ for different keys, and neighbours look nothing alike', () => {
    const ids = Array.from({ length: 5000 }, (_, i) => idForSeq(i + 1));
    expect(new Set(ids).size).toBe(ids.length);
    // A typo in one character of one id should not name the lock granted just before or after it.
    for (let i = 1; i < ids.length; i++) {
      const differing = [...ids[i]!].filter((char, k) => char !== ids[i - 1]![k]).length;
      expect(differing, `${ids[i - 1]} → ${ids[i]}`).toBeGreaterThan(1);
    }
  });

  it('every id names exactly one key: decoding is onto the id space', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-z]{8}$/), (id) => {
        const seq = seqForId(id)!;
        expect(seq).toBeGreaterThanOrEqual(0);
        expect(seq).toBeLessThanOrEqual(MAX_DERIVED_SEQ);
        if (seq > 0) expect(idForSeq(seq)).toBe(id);
      }),
    );
  });

  it('refuses what is not an id, and keys outside the derived range', () => {
    for (const text of ['', 'abc', 'ABCDEFGH', 'abcdefghi', 'abcd-fgh', ' abcdefg']) expect(seqForId(text)).toBeUndefined();
    for (const seq of [0, -1, MAX_DERIVED_SEQ + 1, 1.5, Number.NaN]) expect(() => idForSeq(seq)).toThrow(RangeError);
  });

  it('random ids (the fallback) have the same form', () => {
    for (let i = 0; i < 100; i++) expect(randomId()).toMatch(ID_PATTERN);
  });
});
