// How long the last write transaction waited for SQLite's write lock, and how long it then held it:
// the figures the benchmark reports for concurrent hooks (IC_TIMING=1 prints them to stderr).
export interface TransactionTimings {
  lockWaitMs: number;
  heldMs: number;
}

let last: TransactionTimings = { lockWaitMs: 0, heldMs: 0 };

export function recordTransaction(timings: TransactionTimings): void {
  last = timings;
}

export function lastTransactionTimings(): TransactionTimings {
  return last;
}
