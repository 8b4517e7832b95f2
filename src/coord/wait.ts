import type { Clock } from '../core/time';

export type Sleep = (ms: number) => void;

// The CLI is synchronous from start to exit; Atomics.wait is a real sleep without an event loop.
export const blockingSleep: Sleep = (ms) => {
  if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

export interface RetryOptions {
  waitMs: number;
  clock: Clock;
  sleep?: Sleep;
  random?: () => number;
}

// Retries `attempt` with exponential backoff and jitter until it yields a value or the wait runs out;
// jitter keeps many waiters on one lock from retrying in lockstep.
export function retryWithBackoff<T>(attempt: (info: { first: boolean; waitedMs: number }) => { done: boolean; value: T }, options: RetryOptions): { value: T; waitedMs: number; timedOut: boolean } {
  const sleep = options.sleep ?? blockingSleep;
  const random = options.random ?? Math.random;
  const startedAt = options.clock();
  let delay = 25;
  let first = true;
  for (;;) {
    const waitedMs = options.clock() - startedAt;
    const result = attempt({ first, waitedMs });
    if (result.done) return { value: result.value, waitedMs, timedOut: false };
    const remaining = options.waitMs - (options.clock() - startedAt);
    if (remaining <= 0) return { value: result.value, waitedMs: options.clock() - startedAt, timedOut: true };
    sleep(Math.min(remaining, delay / 2 + random() * delay));
    delay = Math.min(delay * 2, 1_000);
    first = false;
  }
}
