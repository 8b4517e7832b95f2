// retryThroughBusy (coord/wait.ts) with an injected clock and sleep: a busy database counts as "not yet".
import { describe, expect, it } from 'vitest';
import { IcError } from '../../src/core/errors';
import { MIN_LOCK_WAIT_MS, retryThroughBusy } from '../../src/coord/wait';

function fakeTime() {
  let now = 0;
  return { clock: () => now, sleep: (ms: number) => void (now += ms), advance: (ms: number) => void (now += ms) };
}

describe('retryThroughBusy', () => {
  it('keeps trying through BUSY until an attempt answers, bounding each wait for the write lock by what is left', async () => {
    const time = fakeTime();
    const lockWaits: number[] = [];
    let calls = 0;
    const result = await retryThroughBusy(
      () => {
        calls++;
        time.advance(300); // each busy attempt waits its (bounded) busy timeout
        if (calls < 4) throw new IcError('BUSY', 'busy');
        return { done: true, value: 'granted' };
      },
      { waitMs: 10_000, clock: time.clock, sleep: time.sleep, random: () => 0.5, busyValue: 'busy', limitLockWait: (ms) => lockWaits.push(ms) },
    );
    expect(result).toMatchObject({ value: 'granted', timedOut: false, busy: false });
    expect(calls).toBe(4);
    expect(lockWaits[0]).toBe(10_000);
    expect(lockWaits.every((ms, i) => i === 0 || ms < lockWaits[i - 1]!)).toBe(true);
  });

  it('times out with busy: true when the database stayed busy for the whole wait', async () => {
    const time = fakeTime();
    const lockWaits: number[] = [];
    const result = await retryThroughBusy(
      () => {
        time.advance(lockWaits[lockWaits.length - 1]!); // busy for as long as it was allowed to wait
        throw new IcError('BUSY', 'busy');
      },
      { waitMs: 1_000, clock: time.clock, sleep: time.sleep, random: () => 0.5, busyValue: 'busy', limitLockWait: (ms) => lockWaits.push(ms) },
    );
    expect(result).toMatchObject({ value: 'busy', timedOut: true, busy: true });
    expect(time.clock()).toBeLessThanOrEqual(1_000 + MIN_LOCK_WAIT_MS);
    expect(Math.min(...lockWaits)).toBeGreaterThanOrEqual(MIN_LOCK_WAIT_MS);
  });

  it('lets every other error through at once', async () => {
    const time = fakeTime();
    await expect(
      retryThroughBusy(
        () => {
          throw new IcError('DB_UNAVAILABLE', 'gone');
        },
        { waitMs: 1_000, clock: time.clock, sleep: time.sleep, busyValue: 'busy', limitLockWait: () => {} },
      ),
    ).rejects.toThrow('gone');
  });
});
