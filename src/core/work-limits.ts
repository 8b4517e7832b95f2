import { IcError } from './errors';

// The limits on the work of one call (README, "Guarantees"). Each keeps the worst accepted call's hold
// on the database's write lock near 50 ms, so a concurrent hook is answered in its normal time.
export const WORK_LIMITS = {
  patterns: 500, // patterns (or names) in one reserve or check
  comparisons: 100_000, // (requested pattern, stored candidate) pairs one decision may compare
} as const;

// Internal budgets for the write transaction itself (not published: they only choose the path a call takes).
export const WRITE_BUDGET = {
  // A call of at most this many literal paths (or names), with at most inLockPairs pairs to compare,
  // decides inside the write lock as it always did: the hook's single-file reserve pays nothing extra.
  fastPathPatterns: 4,
  inLockPairs: 32,
  // Locks changed by other writers between the snapshot and the write lock that are re-checked there;
  // more than this and the decision is redone from a new snapshot.
  changedLocks: 256,
  // Conflicts found in the snapshot that are re-checked, row by row, inside the write lock.
  recheckedConflicts: 256,
  // Snapshot decisions one call tries before answering BUSY (other writers kept changing what it depends on).
  optimisticAttempts: 5,
  // Conflict events one refused call records (the reply still lists every conflict).
  recordedConflicts: 100,
} as const;

export type WorkLimitName = keyof typeof WORK_LIMITS;

const DESCRIPTIONS: Record<WorkLimitName, string> = {
  patterns: 'patterns in one call',
  comparisons: 'comparisons of requested patterns with held locks',
};

const ADVICE: Record<WorkLimitName, string> = {
  patterns: 'split the call, or reserve a directory (dir/**) instead of its files',
  comparisons: 'reserve fewer or narrower patterns (a longer literal directory prefix compares with fewer held locks)',
};

// Refuses a call past a work limit with TOO_COMPLEX naming the limit, the measured value and the maximum.
export function checkWorkLimit(limit: WorkLimitName, value: number): void {
  const max = WORK_LIMITS[limit];
  if (value <= max) return;
  throw new IcError('TOO_COMPLEX', `call too large: ${value} ${DESCRIPTIONS[limit]} (limit ${limit} is ${max}); ${ADVICE[limit]}`, { limit, value, max });
}
