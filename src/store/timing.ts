// Timing of database work: a monotonic clock, and how long write transactions waited and held the lock.

// A monotonic clock in ms. Not `performance.now()`: touching the `performance` global loads node:perf_hooks,
// ~2 ms of every hook's start.
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

// How long the last write transaction waited for SQLite's write lock, and how long it then held it:
// the figures the benchmark reports for concurrent hooks (IC_TIMING=1 prints them to stderr). The longest
// hold of the process is kept too: one call may run more than one write transaction.
export interface TransactionTimings {
  lockWaitMs: number;
  heldMs: number;
}

let last: TransactionTimings = { lockWaitMs: 0, heldMs: 0 };
let longestHeldMs = 0;
let holds: number[] | undefined;

export function recordTransaction(timings: TransactionTimings): void {
  last = timings;
  longestHeldMs = Math.max(longestHeldMs, timings.heldMs);
  holds?.push(timings.heldMs);
}

// Every hold from now on, kept for the benchmark (a bulk operation runs one transaction per chunk).
export function collectWriteHolds(): number[] {
  holds = [];
  return holds;
}

export function lastTransactionTimings(): TransactionTimings {
  return last;
}

// The longest the write lock was held by any transaction since the process started (or the last reset).
export function longestWriteHold(): number {
  return longestHeldMs;
}

export function resetLongestWriteHold(): void {
  longestHeldMs = 0;
}
