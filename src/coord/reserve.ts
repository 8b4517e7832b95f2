import { type CandidateGroup, checkWorkLimit, type Conflict, countComparisons, findGroupConflicts, type LockRequest, recheckConflict, reviseForChanges, WRITE_BUDGET } from '../core/conflict';
import { IcError } from '../core/errors';
import { type Lock, type LockMode, type LockType } from '../core/lock';
import { isLiteral, literalBase } from '../core/glob';
import { recordEvent } from '../store/events';
import { allocateLockKey, findCandidates, getLock, insertLock, markReleased, setExpiry, withoutBase, type StoredLock } from '../store/locks';
import { locksChangedSince, purgeCount, snapshotEventId } from '../store/changes';
import type { Connection } from '../store/connection';
import { busyTimeoutFromEnv, ownScope, readTransaction, writeTransaction, type CoordContext } from './context';
import { retryThroughBusy, type Attempt } from './wait';
import { mapInOrder } from '../core/in-order';
import { lockEvent, renewalDetail } from './renewal';

export interface ReserveInput {
  type: LockType;
  /** Already canonical: file patterns normalised, names validated. */
  patterns: string[];
  owner: string;
  mode: LockMode;
  ttlMs: number;
  reason: string | null;
  /** Added to the detail of each `conflict` event a refusal records (a shell hook: the command). */
  conflictDetail?: Record<string, unknown>;
  /** A renewal never shortens the lock (hooks: a shell command's cover must outlive the session's next edit). */
  neverShorten?: boolean;
}

// `busy`: a wait ran out while the database was busy (conflicts then are the last ones seen, if any).
// `now` on a refusal: the database's time it was decided at (the server's on PostgreSQL), for the relative
// times shown with it ("until 14:32 (in 13m)"), which a client's own clock would get wrong by its skew.
export type ReserveOutcome = { granted: true; locks: Lock[] } | { granted: false; conflicts: Conflict[]; busy?: true; now?: number };

// The index key of a pattern: file patterns by literal base, names and claims by the name itself.
export function baseOf(type: LockType, pattern: string): string {
  return type === 'file' ? literalBase(pattern) : pattern;
}

// The candidates of each request, by its own query (see CandidateGroup): never one merged list.
export async function gatherGroups(db: Connection, requests: readonly LockRequest[], now: number, lockDelayMs: number): Promise<CandidateGroup<StoredLock>[]> {
  return mapInOrder(requests, async (request) => ({
    request,
    candidates: await findCandidates(db, { scope: request.scope, type: request.type, base: baseOf(request.type, request.pattern), delayCutoff: now - lockDelayMs }),
  }));
}

export function toRequests(ctx: Pick<CoordContext, 'scope'>, input: Pick<ReserveInput, 'type' | 'patterns' | 'owner' | 'mode'>): LockRequest[] {
  const unique = [...new Set(input.patterns)];
  checkWorkLimit('patterns', unique.length);
  return unique.map((pattern) => ({ type: input.type, scope: ctx.scope, pattern, owner: input.owner, mode: input.mode }));
}

// All patterns are granted (or renewed) or none is, and each blocker is reported once. A small call
// decides inside the write lock, as it always did; a larger one decides from a read snapshot and only
// re-checks, inside the write lock, what can have changed its answer since (see Snapshot), so no
// call holds the write lock for long. A waiting caller records its conflicts on the first try only, and one `waited`
// event when granted.
export async function reserveOnce(ctx: CoordContext, input: ReserveInput, attempt: Attempt = { first: true, waitedMs: 0 }): Promise<ReserveOutcome> {
  const requests = toRequests(ctx, input);
  if (fitsTheWriteLock(requests)) {
    const outcome = await decideInWriteLock(ctx, input, requests, attempt);
    if (outcome !== TOO_BIG_FOR_THE_LOCK) return outcome;
  }
  for (let tries = 0; tries < WRITE_BUDGET.optimisticAttempts; tries++) {
    const outcome = await commitSnapshot(ctx, input, await takeSnapshot(ctx, requests), attempt);
    if (outcome !== SNAPSHOT_STALE) return outcome;
  }
  throw new IcError('BUSY', `other writers kept changing the locks this call depends on (${WRITE_BUDGET.optimisticAttempts} tries); try again`, { tries: WRITE_BUDGET.optimisticAttempts });
}

// Retries `take` (reserveOnce, or a named lock's) until granted or `waitMs` has passed, through conflicts
// and a busy database alike (README, "Waiting"). Each attempt waits for the write lock only as long as the
// wait has left; the connection's own busy timeout is restored afterwards.
export async function reserveWaiting(ctx: CoordContext, waitMs: number, take: (attempt: Attempt) => Promise<ReserveOutcome>): Promise<{ outcome: ReserveOutcome; timedOut: boolean }> {
  const busyTimeoutMs = busyTimeoutFromEnv(ctx.env);
  let lastAnswer: ReserveOutcome | undefined;
  try {
    const result = await retryThroughBusy(
      async (attempt) => {
        lastAnswer = await take(attempt);
        return { done: lastAnswer.granted, value: lastAnswer };
      },
      { waitMs, clock: ctx.clock, busyValue: { granted: false, conflicts: [], busy: true } as ReserveOutcome, limitLockWait: (ms) => ctx.db.setLockWait(ms) },
    );
    if (result.busy && lastAnswer && !lastAnswer.granted) return { outcome: { ...lastAnswer, busy: true }, timedOut: true };
    return { outcome: result.value, timedOut: result.timedOut };
  } finally {
    ctx.db.setLockWait(busyTimeoutMs);
  }
}

// A few literal paths or names (a hook's edit, a named lock, a claim) find only the locks on their
// ancestors, so deciding them inside the write lock stays cheap; a glob may meet thousands of held locks.
function fitsTheWriteLock(requests: readonly LockRequest[]): boolean {
  return requests.length <= WRITE_BUDGET.fastPathPatterns && requests.every((request) => request.type !== 'file' || isLiteral(request.pattern));
}

// The comparisons limit, except for a hook-sized call (a few literal paths or names): matching a path
// against a held pattern is linear, and a hook must decide an edit, never answer TOO_COMPLEX (which would
// let it through). Candidates are already narrowed to the path's ancestors (findCandidates).
export function checkComparisons(requests: readonly LockRequest[], groups: readonly CandidateGroup[]): void {
  if (fitsTheWriteLock(requests)) return;
  checkWorkLimit('comparisons', countComparisons(groups));
}

const TOO_BIG_FOR_THE_LOCK = Symbol('more comparisons than the write lock affords');
export const SNAPSHOT_STALE = Symbol('too much changed since the snapshot');

// The small call's path: gather and decide inside one write transaction, unless the candidates found call
// for more glob comparisons than the write lock affords (then nothing is written and the snapshot path runs).
async function decideInWriteLock(ctx: CoordContext, input: ReserveInput, requests: LockRequest[], attempt: Attempt): Promise<ReserveOutcome | typeof TOO_BIG_FOR_THE_LOCK> {
  return writeTransaction(ctx, ownScope(ctx), async (now) => {
    const groups = await gatherGroups(ctx.db, requests, now, ctx.lockDelayMs);
    if (countComparisons(groups) > WRITE_BUDGET.inLockPairs) return TOO_BIG_FOR_THE_LOCK;
    return commit(ctx, input, groups.map(ownLockOf), findGroupConflicts(groups, now, ctx.lockDelayMs), attempt, now);
  });
}

// The large call's path. In a read snapshot (at time t0, event id E): gather each request's candidates and
// decide; then, inside the write lock (at t1), bring that answer up to date and commit it. Only two kinds
// of lock can answer differently at t1 than at t0, and both are re-checked on their rows as they are at t1:
// - the snapshot's own conflicts (they may have been released, expired or handed to the requester), and
// - the locks changed by writes after the snapshot: a grant, renewal, upgrade, release, expiry or transfer
//   records an event naming the lock in the same transaction, with an id above E (ids grow in commit
//   order), so they are exactly the locks named by such events after E.
// Every other candidate did not block at t0 and still does not: its owner, mode and pattern are as they
// were, and time alone only unbinds (active → lock-delay → free). The one write without an event,
// heartbeat's extension, only extends locks active at the time, so they were bound at t0 already.
// A purge deletes events: it counts itself in the same transaction, so a count that moved since t0 means "cannot
// tell" and the decision is redone, as it is when the clock ran backwards or too much changed. Hence no
// two conflicting grants, and every conflict reported or recorded was true at t1 (the checker of the
// stress harness holds each `conflict` event to that).
export interface Snapshot {
  now: number;
  eventId: number;
  /** The purge count at the snapshot (store/changes.ts). */
  purges: number;
  requests: LockRequest[];
  /** Each request's own lock, found outside the write lock. */
  owns: Own[];
  conflicts: Conflict[];
}

// Reads and decides without the write lock: the glob comparisons, the costly part, happen here.
export async function takeSnapshot(ctx: CoordContext, requests: LockRequest[]): Promise<Snapshot> {
  return readTransaction(ctx, async (now) => {
    const groups = await gatherGroups(ctx.db, requests, now, ctx.lockDelayMs);
    checkComparisons(requests, groups);
    return {
      now,
      eventId: await snapshotEventId(ctx.db, ctx.scope),
      purges: await purgeCount(ctx.db),
      requests,
      owns: groups.map(ownLockOf),
      conflicts: findGroupConflicts(groups, now, ctx.lockDelayMs),
    };
  });
}

// Inside the write lock: the snapshot's answer, brought up to date with what changed since, is committed.
export async function commitSnapshot(ctx: CoordContext, input: ReserveInput, snapshot: Snapshot, attempt: Attempt): Promise<ReserveOutcome | typeof SNAPSHOT_STALE> {
  return writeTransaction(ctx, ownScope(ctx), async (now) => {
    if (now < snapshot.now || (await purgeCount(ctx.db)) !== snapshot.purges) return SNAPSHOT_STALE;
    const changedIds = await locksChangedSince(ctx.db, snapshot.eventId, ctx.scope);
    if (changedIds.length > WRITE_BUDGET.changedLocks) return SNAPSHOT_STALE;
    const changed = (await mapInOrder(changedIds, (id) => getLock(ctx.db, id))).filter((lock): lock is StoredLock => lock !== undefined);
    // The snapshot's conflicts, on their rows as they are now; past the budget, the rest stand as found.
    const rechecked = snapshot.conflicts.slice(0, WRITE_BUDGET.recheckedConflicts);
    const unverified = snapshot.conflicts.slice(WRITE_BUDGET.recheckedConflicts);
    const requester = snapshot.requests[0]!; // every request has the same owner, mode, type and scope
    const stillBlocking = (await mapInOrder(rechecked, async (conflict) => recheckConflict(conflict, requester, await getLock(ctx.db, conflict.held.id), now, ctx.lockDelayMs))).filter(
      (c): c is Conflict => c !== null,
    );
    const known = new Set(snapshot.conflicts.map((conflict) => conflict.held.id));
    const revision = reviseForChanges(
      snapshot.requests,
      changed.filter((lock) => !known.has(lock.id)),
      now,
      ctx.lockDelayMs,
      WRITE_BUDGET.inLockPairs,
    );
    if (revision.kind === 'too_much') return SNAPSHOT_STALE;
    const verified = [...stillBlocking, ...revision.conflicts].sort((x, y) => x.held.token - y.held.token);
    if (verified.length === 0 && unverified.length > 0) return SNAPSHOT_STALE; // cannot tell without rechecking the rest
    const conflicts = unverified.length === 0 ? verified : [...verified, ...unverified].sort((x, y) => x.held.token - y.held.token);
    return commit(ctx, input, ownsAfterChanges(snapshot, new Set(changedIds), changed), conflicts, attempt, now, verified);
  });
}

// Each request's own lock as it is now: the snapshot's, unless it changed since, or a changed lock now is.
function ownsAfterChanges(snapshot: Snapshot, changedIds: ReadonlySet<string>, changed: readonly StoredLock[]): Own[] {
  if (changedIds.size === 0) return snapshot.owns;
  return snapshot.owns.map(({ request, lock }) => ownLockOf({ request, candidates: lock && !changedIds.has(lock.id) ? [lock, ...changed] : changed }));
}

// Writes the decision inside the write transaction: the grants (or renewals), or the first try's conflict
// events, recorded only for conflicts known to hold now (`recordable`).
async function commit(
  ctx: CoordContext,
  input: ReserveInput,
  owns: readonly Own[],
  conflicts: Conflict[],
  attempt: Attempt,
  now: number,
  recordable: readonly Conflict[] = conflicts,
): Promise<ReserveOutcome> {
  if (conflicts.length > 0) {
    if (attempt.first) for (const conflict of recordable.slice(0, WRITE_BUDGET.recordedConflicts)) await recordConflict(ctx, conflict, input.owner, now, input.conflictDetail);
    return { granted: false, conflicts, now };
  }
  const locks = await mapInOrder(owns, ({ request, lock }) => grantOrRenew(ctx, request, input, now, lock));
  if (!attempt.first) {
    await recordEvent(ctx.db, {
      type: 'waited',
      lock_id: locks[0]?.id ?? null,
      scope: ctx.scope,
      owner: input.owner,
      pattern: owns[0]?.request.pattern ?? null,
      reason: null,
      created_at: now,
      detail: { waited_ms: attempt.waitedMs },
    });
  }
  return { granted: true, locks };
}

// A request and the requester's own unreleased lock on exactly its pattern, if any (renewed, not doubled).
interface Own {
  request: LockRequest;
  lock: StoredLock | undefined;
}

// The own lock is among the request's candidates (same base): no extra query.
function ownLockOf({ request, candidates }: CandidateGroup<StoredLock>): Own {
  let own: StoredLock | undefined;
  for (const lock of candidates) {
    if (lock.released_at !== null || lock.owner !== request.owner || lock.pattern !== request.pattern || lock.type !== request.type || lock.scope !== request.scope) continue;
    if (!own || lock.token > own.token) own = lock;
  }
  return { request, lock: own };
}

async function grantOrRenew(ctx: CoordContext, request: LockRequest, input: ReserveInput, now: number, own: StoredLock | undefined): Promise<Lock> {
  const base = baseOf(request.type, request.pattern);
  const expiresAt = now + input.ttlMs;
  // A snapshot's copy may predate a heartbeat (which extends without an event): ask the row before expiring it.
  if (own && own.expires_at <= now) {
    const row = await getLock(ctx.db, own.id);
    own = row && row.released_at === null ? row : undefined;
  }
  if (own && own.expires_at > now) {
    const renewedTo = input.neverShorten === true ? Math.max(expiresAt, own.expires_at) : expiresAt;
    await setExpiry(ctx.db, own.seq, renewedTo, input.ttlMs, request.mode);
    const detail = renewalDetail(renewedTo, request.mode, own.mode); // a re-reserve may switch the mode in place
    await lockEvent(ctx.db, 'renewed', own, now, { reason: input.reason, detail });
    return withoutBase({ ...own, expires_at: renewedTo, mode: request.mode });
  }
  if (own) await expireLock(ctx, own, now);
  const key = await allocateLockKey(ctx.db);
  const token = key.seq; // the fencing token is the id of the event that records the grant
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
  await insertLock(ctx.db, lock);
  // The log alone replays a lock's life: what it was granted as, until when.
  const detail = { expires_at: expiresAt, mode: lock.mode };
  await lockEvent(ctx.db, 'reserved', lock, now, { reason: lock.reason, detail, token });
  return withoutBase(lock);
}

// Marks one lapsed lock as expired with its single `expired` event (a no-op if a sweep got there first).
export async function expireLock(ctx: Pick<CoordContext, 'db'>, lock: StoredLock, now: number): Promise<boolean> {
  if (!(await markReleased(ctx.db, lock.seq, now, 'expired'))) return false;
  await lockEvent(ctx.db, 'expired', lock, now, { detail: { expired_at: lock.expires_at } });
  return true;
}

export async function recordConflict(ctx: CoordContext, conflict: Conflict, owner: string, now: number, extra?: Record<string, unknown>): Promise<void> {
  const { held } = conflict;
  await lockEvent(ctx.db, 'conflict', { ...held, pattern: conflict.pattern }, now, { owner, detail: { held_owner: held.owner, held_pattern: held.pattern, state: conflict.state, ...extra } });
}
