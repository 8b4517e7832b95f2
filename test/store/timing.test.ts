import { describe, expect, it } from 'vitest';
import { lastTransactionTimings, longestWriteHold, recordTransaction, resetLongestWriteHold } from '../../src/store/clock';

describe('transaction timings', () => {
  it('keep the last figures and the longest hold until reset', () => {
    resetLongestWriteHold();
    recordTransaction({ lockWaitMs: 1, heldMs: 5 });
    recordTransaction({ lockWaitMs: 2, heldMs: 3 });
    expect(lastTransactionTimings()).toEqual({ lockWaitMs: 2, heldMs: 3 });
    expect(longestWriteHold()).toBe(5);
    resetLongestWriteHold();
    expect(longestWriteHold()).toBe(0);
  });
});
