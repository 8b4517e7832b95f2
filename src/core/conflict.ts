// Which held locks block a request (exact glob overlap, lock-delay, run leases), and the limits on the work
// of deciding it.
import { IcError } from './errors';
import { literalBase, overlaps } from './glob';
import type { Lock, LockType } from './lock';
import { isRunOwner } from './owner';

export type LockRequest = Pick<Lock, 'type' | 'scope' | 'pattern' | 'owner' | 'mode'>;

export interface Conflict {
  pattern: string;
  held: Lock;
  example: string;
  /** `held` is active, or lapsed by expiry but still inside the lock-delay window, or (a run's lock) its
   * lease lapsed but its command still runs on this host. */
  state: 'active' | 'lock_delay' | 'command_running';
  /** command_running: the process group of the orphaned command. */
  pid?: number;
}

// Where can both locks apply? Files by exact glob overlap; named locks and claims by equal names only.
export function commonTarget(type: LockType, a: string, b: string): string | null {
  if (type !== 'file') return a === b ? a : null;
  const result = overlaps(a, b);
  return result.overlap ? (result.example ?? a) : null;
}

// Does `held` still bind others at `now`? Active locks do; so does a lock that lapsed by expiry
// (not release or transfer) within `lockDelayMs`, because its owner may still be writing. The lease of a
// `lock NAME -- CMD` run is the exception: its owner is one dead ic process, and the lease is short so
// that the lock is free within it.
export function bindingState(held: Lock, now: number, lockDelayMs: number): 'active' | 'lock_delay' | null {
  if (held.released_at === null && held.expires_at > now) return 'active';
  const lapsedByExpiry = (held.released_at === null || held.release_reason === 'expired') && !isRunOwner(held.owner);
  if (lapsedByExpiry && lockDelayMs > 0 && held.expires_at + lockDelayMs > now) return 'lock_delay';
  return null;
}

// The conflict rule (docs/reference.md, "Locks"): same scope and type, different owners, one exclusive, a common target.
export function conflictWith(request: LockRequest, held: Lock, now: number, lockDelayMs: number): Conflict | null {
  if (held.scope !== request.scope || held.type !== request.type || held.owner === request.owner) return null;
  if (request.mode === 'shared' && held.mode === 'shared') return null;
  const state = bindingState(held, now, lockDelayMs);
  if (state === null) return null;
  const example = commonTarget(request.type, request.pattern, held.pattern);
  return example === null ? null : { pattern: request.pattern, held, example, state };
}

// One request with the stored locks its candidate query found. The query is complete (every lock that can
// bind the request is in it), so a request never needs comparing with another request's candidates: that
// cross product is what made a call with thousands of patterns quadratic.
export interface CandidateGroup<L extends Lock = Lock> {
  request: LockRequest;
  candidates: readonly L[];
}

// The pairs a decision over these groups compares (what WORK_LIMITS.comparisons caps).
export function countComparisons(groups: readonly CandidateGroup[]): number {
  let pairs = 0;
  for (const group of groups) pairs += group.candidates.length;
  return pairs;
}

// Every held lock that blocks a request, each once, paired with the first request (in request order) it
// blocks, ordered by token. A lock missing from a request's group cannot
// bind that request, so skipping the pair changes nothing.
export function findGroupConflicts(groups: readonly CandidateGroup[], now: number, lockDelayMs: number): Conflict[] {
  const byHeld = new Map<string, Conflict>();
  for (const { request, candidates } of groups) {
    for (const held of candidates) {
      if (byHeld.has(held.id)) continue;
      const conflict = conflictWith(request, held, now, lockDelayMs);
      if (conflict) byHeld.set(held.id, conflict);
    }
  }
  return [...byHeld.values()].sort((x, y) => x.held.token - y.held.token);
}

// Can two patterns of this type share a target at all? File patterns only when one literal base is a
// path-prefix of the other (what the candidate query selects by); names only when equal. Cheap: no glob work.
export function mayOverlap(type: LockType, a: string, b: string): boolean {
  if (type !== 'file') return a === b;
  const x = literalBase(a);
  const y = literalBase(b);
  return x === '' || y === '' || x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}

export type Revision = { kind: 'revised'; conflicts: Conflict[] } | { kind: 'too_much'; pairs: number };

// Brings a snapshot's answer (no conflicts among the snapshot's candidates at its time) up to date with
// the locks other writers changed since, judged at `now`: only those are compared, so the write lock is
// held for work in proportion to what changed. `current` holds the changed locks as they are now (a
// deleted one is simply absent). Gives up with `too_much` past `maxPairs` glob comparisons.
export function reviseForChanges(requests: readonly LockRequest[], current: readonly Lock[], now: number, lockDelayMs: number, maxPairs: number): Revision {
  const groups: CandidateGroup[] = [];
  let pairs = 0;
  for (const request of requests) {
    const related = current.filter((held) => held.scope === request.scope && held.type === request.type && mayOverlap(request.type, request.pattern, held.pattern));
    pairs += related.length;
    if (pairs > maxPairs) return { kind: 'too_much', pairs };
    groups.push({ request, candidates: related });
  }
  return { kind: 'revised', conflicts: findGroupConflicts(groups, now, lockDelayMs) };
}

// Does a conflict found in an earlier snapshot still hold at `now`, judged on the held lock's row as it is
// now (absent if deleted)? A lock's pattern never changes, so the example found then still serves.
export function recheckConflict(conflict: Conflict, request: Pick<LockRequest, 'scope' | 'type' | 'owner' | 'mode'>, current: Lock | undefined, now: number, lockDelayMs: number): Conflict | null {
  if (!current || current.pattern !== conflict.held.pattern || current.scope !== request.scope || current.type !== request.type || current.owner === request.owner) return null;
  if (request.mode === 'shared' && current.mode === 'shared') return null;
  const state = bindingState(current, now, lockDelayMs);
  return state === null ? null : { ...conflict, held: current, state };
}

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

const DESCRIPTIONS: Record<WorkLimitName, string> = { patterns: 'patterns in one call', comparisons: 'comparisons of requested patterns with held locks' };

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
