import { findConflicts, type Conflict, type LockRequest } from '../core/conflict';
import { type Lock, type LockMode, type LockType } from '../core/lock';
import { literalBase } from '../core/glob';
import { insertEvent, nextEventId } from '../store/events';
import { allocateLockKey, findCandidates, insertLock, markReleased, setExpiry, withoutBase, type StoredLock } from '../store/locks';
import type { Database } from 'better-sqlite3';
import { writeTransaction, type CoordContext } from './context';

export interface ReserveInput {
  type: LockType;
  /** Already canonical: file patterns normalised, names validated. */
  patterns: string[];
  owner: string;
  mode: LockMode;
  ttlMs: number;
  reason: string | null;
}

export type ReserveOutcome = { granted: true; locks: Lock[] } | { granted: false; conflicts: Conflict[] };

// The index key of a pattern: file patterns by literal base, names and claims by the name itself.
export function baseOf(type: LockType, pattern: string): string {
  return type === 'file' ? literalBase(pattern) : pattern;
}

// Every lock that could bind any of the requests, each once.
export function gatherCandidates(db: Database, requests: readonly LockRequest[], now: number, lockDelayMs: number): StoredLock[] {
  const byId = new Map<string, StoredLock>();
  for (const request of requests) {
    const rows = findCandidates(db, { scope: request.scope, type: request.type, base: baseOf(request.type, request.pattern), delayCutoff: now - lockDelayMs });
    for (const row of rows) byId.set(row.id, row);
  }
  return [...byId.values()];
}

export function toRequests(ctx: Pick<CoordContext, 'scope'>, input: Pick<ReserveInput, 'type' | 'patterns' | 'owner' | 'mode'>): LockRequest[] {
  const unique = [...new Set(input.patterns)];
  return unique.map((pattern) => ({ type: input.type, scope: ctx.scope, pattern, owner: input.owner, mode: input.mode }));
}

// Decides in one transaction: all patterns are granted (or renewed) or none is, and each blocker is reported once.
// A waiting caller records its conflicts on the first try only, and one `waited` event when granted.
export function reserveOnce(ctx: CoordContext, input: ReserveInput, attempt: { first: boolean; waitedMs: number } = { first: true, waitedMs: 0 }): ReserveOutcome {
  const requests = toRequests(ctx, input);
  return writeTransaction(ctx, (now) => {
    const candidates = gatherCandidates(ctx.db, requests, now, ctx.lockDelayMs);
    const conflicts = findConflicts(requests, candidates, now, ctx.lockDelayMs);
    if (conflicts.length > 0) {
      if (attempt.first) for (const conflict of conflicts) recordConflict(ctx, conflict, input.owner, now);
      return { granted: false, conflicts };
    }
    const locks = requests.map((request) => grantOrRenew(ctx, request, input, now, ownLock(candidates, request)));
    if (!attempt.first) {
      insertEvent(ctx.db, { type: 'waited', lock_id: locks[0]?.id ?? null, scope: ctx.scope, owner: input.owner, pattern: requests[0]?.pattern ?? null, reason: null, created_at: now, detail: { waited_ms: attempt.waitedMs } });
    }
    return { granted: true, locks };
  });
}

// The requester's own unreleased lock on exactly this pattern is among the candidates (same base): no extra query.
function ownLock(candidates: readonly StoredLock[], request: LockRequest): StoredLock | undefined {
  let own: StoredLock | undefined;
  for (const lock of candidates) {
    if (lock.released_at !== null || lock.owner !== request.owner || lock.pattern !== request.pattern || lock.type !== request.type) continue;
    if (!own || lock.token > own.token) own = lock;
  }
  return own;
}

function grantOrRenew(ctx: CoordContext, request: LockRequest, input: ReserveInput, now: number, own: StoredLock | undefined): Lock {
  const base = baseOf(request.type, request.pattern);
  const expiresAt = now + input.ttlMs;
  if (own && own.expires_at > now) {
    setExpiry(ctx.db, own.seq, expiresAt, input.ttlMs, request.mode);
    insertEvent(ctx.db, { type: 'renewed', lock_id: own.id, scope: own.scope, owner: own.owner, pattern: own.pattern, reason: input.reason, created_at: now });
    return withoutBase({ ...own, expires_at: expiresAt, mode: request.mode });
  }
  if (own) expireLock(ctx, own, now);
  const next = nextEventId(ctx.db);
  const token = next.id; // the fencing token is the id of the event that records the grant
  const key = allocateLockKey(ctx.db, next);
  const lock: StoredLock = {
    seq: key.seq,
    id: key.id,
    token,
    type: request.type,
    scope: request.scope,
    pattern: request.pattern,
    base,
    owner: request.owner,
    mode: request.mode,
    reason: input.reason,
    created_at: now,
    expires_at: expiresAt,
    ttl_ms: input.ttlMs,
    released_at: null,
    release_reason: null,
  };
  insertLock(ctx.db, lock);
  insertEvent(ctx.db, { type: 'reserved', lock_id: lock.id, scope: lock.scope, owner: lock.owner, pattern: lock.pattern, reason: lock.reason, created_at: now }, token);
  return withoutBase(lock);
}

// Marks one lapsed lock as expired with its single `expired` event (a no-op if a sweep got there first).
export function expireLock(ctx: Pick<CoordContext, 'db'>, lock: StoredLock, now: number): boolean {
  if (!markReleased(ctx.db, lock.seq, now, 'expired')) return false;
  insertEvent(ctx.db, { type: 'expired', lock_id: lock.id, scope: lock.scope, owner: lock.owner, pattern: lock.pattern, reason: null, created_at: now, detail: { expired_at: lock.expires_at } });
  return true;
}

function recordConflict(ctx: CoordContext, conflict: Conflict, owner: string, now: number): void {
  insertEvent(ctx.db, {
    type: 'conflict',
    lock_id: conflict.held.id,
    scope: conflict.held.scope,
    owner,
    pattern: conflict.pattern,
    reason: null,
    created_at: now,
    detail: { held_owner: conflict.held.owner, held_pattern: conflict.held.pattern, state: conflict.state },
  });
}
