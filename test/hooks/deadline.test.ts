import { describe, expect, it } from 'vitest';
import { isIcError } from '../../src/core/errors';
import { answerReserveMs, isDeadlineExceeded, NO_DEADLINE, startDeadline } from '../../src/store/deadline';

// The hook's deadline on an injected clock: counted from the process's start, less a reserve for answering.
function clockAt(start: number, elapsedMs = 0): { now: () => number; elapsedMs: number; advance: (ms: number) => void } {
  let now = start;
  return { now: () => now, elapsedMs, advance: (ms) => (now += ms) };
}

describe('hook deadline', () => {
  it('gives a step the budget less the start-up already spent and the reserve for answering', () => {
    const clock = clockAt(1_000_000, 80);
    const deadline = startDeadline(1_000, clock);
    expect(answerReserveMs(1_000)).toBe(200);
    expect(deadline.leftMs()).toBe(1_000 - 80 - 200);
    clock.advance(700);
    expect(deadline.leftMs()).toBe(20);
    clock.advance(50);
    expect(deadline.leftMs()).toBe(0); // never negative: a step with nothing left does not start
  });

  it('keeps back at most a second, as the database waits always did (default budget 5s)', () => {
    expect(answerReserveMs(5_000)).toBe(1_000);
    expect(answerReserveMs(10 * 60_000)).toBe(1_000);
    expect(startDeadline(5_000, clockAt(0)).leftMs()).toBe(4_000);
  });

  it('names the step and IC_HOOK_TIMEOUT when a step runs out of time', () => {
    const error = startDeadline(1_000, clockAt(0)).exceeded('git diff');
    expect(isIcError(error) && error.code).toBe('TIMEOUT');
    expect(error.message).toBe("git diff did not finish within the hook's budget (IC_HOOK_TIMEOUT=1s)");
    expect(isDeadlineExceeded(error)).toBe(true);
    expect(isDeadlineExceeded(new Error('git diff failed'))).toBe(false);
  });

  it('bounds nothing outside a hook (the programmatic API)', () => {
    expect(NO_DEADLINE.leftMs()).toBe(Infinity);
  });
});
