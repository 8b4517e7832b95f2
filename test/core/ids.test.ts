import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ID_PATTERN, randomId } from '../../src/core/ids';

const SPACE = 36 ** 8;

describe('lock ids', () => {
  it('are 8 characters of [0-9a-z] from the default random source, and do not repeat in 10,000 draws', () => {
    const ids = Array.from({ length: 10_000 }, () => randomId());
    expect(ids.filter((id) => !ID_PATTERN.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length); // a repeat here has probability about 2e-5
  });

  it('draw once from the whole space of 36^8 ids and spell the draw in base 36, zero-padded', () => {
    const bounds: number[] = [];
    const spell = (n: number) =>
      randomId((bound) => {
        bounds.push(bound);
        return n;
      });
    expect([spell(0), spell(35), spell(36), spell(SPACE - 1)]).toEqual(['00000000', '0000000z', '00000010', 'zzzzzzzz']);
    expect(bounds).toEqual(Array(4).fill(SPACE));
  });

  it('are one-to-one with the draws: every id is reachable and names exactly one draw', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: SPACE - 1 }), (n) => {
        const id = randomId(() => n);
        expect(id).toMatch(ID_PATTERN);
        expect(parseInt(id, 36)).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-z]{8}$/), (id) => {
        expect(randomId(() => parseInt(id, 36))).toBe(id);
      }),
    );
  });
});
