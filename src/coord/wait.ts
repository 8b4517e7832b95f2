import { IcError } from '../core/errors';
import type { Clock } from '../core/time';

export type Sleep = (ms: number) => void | Promise<void>;

// The store is awaited but nothing else runs beside a call: Atomics.wait is a real sleep without a timer.
export const blockingSleep = (ms: number): void => {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

export interface RetryOptions {
  waitMs: number;
  clock: Clock;
  sleep?: Sleep;
  random?: () => number;
}

// One try of a waiting call: the first, or a retry after `waitedMs`.
export interface Attempt {
  first: boolean;
  waitedMs: number;
}

// Retries `attempt` with exponential backoff and jitter until it yields a value or the wait runs out;
// jitter keeps many waiters on one lock from retrying in lockstep.
export type AttemptResult<T> = { done: boolean; value: T } | Promise<{ done: boolean; value: T }>;

export async function retryWithBackoff<T>(attempt: (info: Attempt) => AttemptResult<T>, options: RetryOptions): Promise<{ value: T; waitedMs: number; timedOut: boolean }> {
  const sleep = options.sleep ?? blockingSleep;
  const random = options.random ?? Math.random;
  const startedAt = options.clock();
  let delay = 25;
  let first = true;
  for (;;) {
    const waitedMs = options.clock() - startedAt;
    const result = await attempt({ first, waitedMs });
    if (result.done) return { value: result.value, waitedMs, timedOut: false };
    const remaining = options.waitMs - (options.clock() - startedAt);
    if (remaining <= 0) return { value: result.value, waitedMs: options.clock() - startedAt, timedOut: true };
    await sleep(Math.min(remaining, delay / 2 + random() * delay));
    delay = Math.min(delay * 2, 1_000);
    first = false;
  }
}

export interface BusyRetryOptions<T> extends RetryOptions {
  /** Stands for an attempt that found the database busy (its write lock held by another writer). */
  busyValue: T;
  /** Bounds how long one attempt may wait for the write lock (SQLite's busy timeout). */
  limitLockWait: (ms: number) => void;
}

// A short grace for the write lock even when the wait is used up (`--wait 0s`): another call holds it
// for milliseconds, and that alone should not turn a try into TIMEOUT.
export const MIN_LOCK_WAIT_MS = 100;

// retryWithBackoff that also waits out a busy database: an attempt that meets BUSY counts as "not yet",
// and each attempt waits for the write lock only as long as the wait has left, so `--wait 30s` waits
// 30 s in all, for holders and for the write lock alike. Reports whether the last attempt was busy.
export async function retryThroughBusy<T>(attempt: (info: Attempt) => AttemptResult<T>, options: BusyRetryOptions<T>): Promise<{ value: T; waitedMs: number; timedOut: boolean; busy: boolean }> {
  const startedAt = options.clock();
  let busy = false;
  const result = await retryWithBackoff(async (info) => {
    options.limitLockWait(Math.max(MIN_LOCK_WAIT_MS, options.waitMs - (options.clock() - startedAt)));
    try {
      const outcome = await attempt(info);
      busy = false;
      return outcome;
    } catch (error) {
      if (!(error instanceof IcError) || error.code !== 'BUSY') throw error;
      busy = true;
      return { done: false, value: options.busyValue };
    }
  }, options);
  return { ...result, busy };
}
