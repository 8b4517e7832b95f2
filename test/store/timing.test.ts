import { describe, expect, it } from 'vitest';
import { collectWriteHolds, lastTransactionTimings, recordTransaction } from '../../src/store/clock';

describe('transaction timings', () => {
  it('keep the last figures, and every hold once collected', () => {
    recordTransaction({ lockWaitMs: 1, heldMs: 7 });
    const holds = collectWriteHolds();
    recordTransaction({ lockWaitMs: 1, heldMs: 5 });
    recordTransaction({ lockWaitMs: 2, heldMs: 3 });
    expect(lastTransactionTimings()).toEqual({ lockWaitMs: 2, heldMs: 3 });
    expect(holds).toEqual([5, 3]);
  });
});
