import { formatDuration } from '../core/time';
import { stallAfterMs } from './config';
import { IcError } from '../core/errors';
import { viewLock, type Lock } from '../core/lock';
import { lastActivity } from '../store/activity';
import { nextEventId } from '../store/events';
import { handoffRequests } from '../store/handoffs';
import { markTold, sessionByOwner } from '../store/sessions';
import { listLocks, prefetchLocks, reassign, setExpiry, withoutBase, type LockFilter, type StoredLock } from '../store/locks';
import { claimWriteScope, readTransaction, writeTransaction, type CoordContext } from './context';
import { mapInOrder } from '../core/in-order';
import { lockEvent } from './renewal';

// Claims that cannot be hoarded (README, "Stalled claims and hand-offs"). A claim is stalled when its
// owner has shown no activity (any event of its own: edits, renewals, heartbeats, commits; or a heartbeat
// record) for the repository's `stall-after` setting (`ic config stall-after`, default 60m), read inside
// the same transaction: never the taker's environment (IC_STALL_AFTER is ignored since 0.3). Derived from
// the log when asked: no daemon marks anything.

export interface ClaimState {
  claim: Lock;
  last_active: number;
  stalled: boolean;
  /** Open hand-off requests: asked since the claim last changed hands. */
  requests: { by: string; at: number; reason: string | null }[];
}

async function activeClaim(ctx: CoordContext, item: string, now: number): Promise<StoredLock | undefined> {
  return (await listLocks(ctx.db, { scope: ctx.claimScope, type: 'claim', pattern: item, activeAt: now }))[0];
}

async function stateOf(ctx: CoordContext, claim: StoredLock, now: number): Promise<ClaimState> {
  const last = Math.max((await lastActivity(ctx.db, claim.owner)) ?? 0, claim.created_at);
  const latest = new Map<string, { by: string; at: number; reason: string | null }>();
  for (const row of await handoffRequests(ctx.db, [claim.id], claim.token)) {
    latest.delete(row.owner); // one per asker: its latest words
    latest.set(row.owner, { by: row.owner, at: row.created_at, reason: row.reason });
  }
  const requests = [...latest.values()];
  return { claim: withoutBase(claim), last_active: last, stalled: now - last >= (await stallAfterMs(ctx.db)), requests };
}

// The active claim on an item with its stalled state and open requests, or undefined when nobody holds it.
export async function claimState(ctx: CoordContext, item: string): Promise<ClaimState | undefined> {
  return readTransaction(ctx, async (now) => {
    const claim = await activeClaim(ctx, item, now);
    return claim ? await stateOf(ctx, claim, now) : undefined;
  });
}

// Every active claim whose owner `isHolder` accepts, with its state: for `who`, the hooks and the status line.
export async function claimsOf(ctx: CoordContext, isHolder: (owner: string) => boolean): Promise<ClaimState[]> {
  return readTransaction(ctx, async (now) =>
    mapInOrder(
      (await listLocks(ctx.db, { scope: ctx.claimScope, type: 'claim', activeAt: now })).filter((claim) => isHolder(claim.owner)),
      (claim) => stateOf(ctx, claim, now),
    ),
  );
}

export interface OpenRequest {
  /** The handoff_requested event. */
  id: number;
  item: string;
  holder: string;
  by: string;
  at: number;
  reason: string | null;
}

// Open hand-off requests for the active claims `isHolder` accepts, without judging activity (cheap: one
// indexed look at the claims, and the log only when there are any). Call inside a transaction.
// One request per asker and item: its latest (a repeated ask replaces its earlier words), oldest first.
export async function openRequestsIn(ctx: CoordContext, isHolder: (owner: string) => boolean, now: number): Promise<OpenRequest[]> {
  const claims = (await listLocks(ctx.db, activeClaims(ctx, now))).filter((claim) => isHolder(claim.owner));
  if (claims.length === 0) return [];
  const byId = new Map(claims.map((claim) => [claim.id, claim]));
  const oldest = Math.min(...claims.map((claim) => claim.token));
  const latest = new Map<string, OpenRequest>();
  for (const row of await handoffRequests(ctx.db, [...byId.keys()], oldest)) {
    if (row.id <= byId.get(row.lock_id)!.token) continue;
    const key = `${row.lock_id}\0${row.owner}`;
    latest.delete(key); // re-inserted last: the map's order is the order of each asker's latest request
    latest.set(key, { id: row.id, item: row.pattern, holder: byId.get(row.lock_id)!.owner, by: row.owner, at: row.created_at, reason: row.reason });
  }
  return [...latest.values()];
}

// The requests a live session's model has not been told yet (docs/sessions.md, "Hand-off"); marks them told.
// Reads only, unless there is something new to tell.
export async function untoldRequests(ctx: CoordContext, owner: string, isHolder: (owner: string) => boolean): Promise<OpenRequest[]> {
  const fresh = await readTransaction(ctx, async (now) => {
    prefetchLocks(ctx.db, activeClaims(ctx, now)); // on a server: fetched with the session, one round trip
    return untoldIn(ctx, (await sessionByOwner(ctx.db, owner))?.told_until, isHolder, now);
  });
  return markRequestsTold(ctx, owner, fresh);
}

// Inside a read: the open requests newer than `told` (the session's told_until; none for no session).
export async function untoldIn(ctx: CoordContext, told: number | undefined, isHolder: (owner: string) => boolean, now: number): Promise<OpenRequest[]> {
  if (told === undefined) return [];
  return (await openRequestsIn(ctx, isHolder, now)).filter((request) => request.id > told);
}

// Records that the session's model is told `fresh` (a write only when there is any), and returns them.
export async function markRequestsTold(ctx: CoordContext, owner: string, fresh: OpenRequest[]): Promise<OpenRequest[]> {
  if (fresh.length === 0) return [];
  await writeTransaction(ctx, claimWriteScope(ctx), async () => markTold(ctx.db, owner, Math.max(...fresh.map((request) => request.id))));
  return fresh;
}

// The claims openRequestsIn reads: a read may announce them first (session-step.ts), to fetch them with its first statement.
export function activeClaims(ctx: CoordContext, now: number): LockFilter {
  return { scope: ctx.claimScope, type: 'claim', activeAt: now };
}

// `claim ITEM --take`: a stalled claim of another owner becomes the taker's, with a new fencing token
// (the `taken_over` event's id) and a fresh TTL; the event records the previous owner and its last activity.
// A claim that is not stalled is refused (CONFLICT); a free item is not this function's business.
export async function takeOver(ctx: CoordContext, input: { item: string; owner: string; ttlMs: number; reason: string | null }): Promise<{ claim: Lock; previous_owner: string } | undefined> {
  return writeTransaction(ctx, claimWriteScope(ctx), async (now) => {
    const claim = await activeClaim(ctx, input.item, now);
    if (!claim || claim.owner === input.owner) return undefined;
    const state = await stateOf(ctx, claim, now);
    if (!state.stalled) {
      throw new IcError(
        'CONFLICT',
        `${input.item} is claimed by ${claim.owner}, who was active ${Math.round((now - state.last_active) / 60_000)}m ago: not stalled (that takes ${formatDuration(await stallAfterMs(ctx.db))} without activity: ic config stall-after)`,
        { held: viewLock(withoutBase(claim)), hint: `Try: coord claim ${input.item} --ask (the holder sees your request)` },
      );
    }
    const token = (await nextEventId(ctx.db)).id;
    await reassign(ctx.db, claim.seq, input.owner, token);
    await setExpiry(ctx.db, claim.seq, now + input.ttlMs, input.ttlMs, claim.mode);
    const detail = { previous_owner: claim.owner, previous_token: claim.token, token, last_active: state.last_active, expires_at: now + input.ttlMs };
    await lockEvent(ctx.db, 'taken_over', claim, now, { owner: input.owner, reason: input.reason, detail, token });
    return { claim: withoutBase({ ...claim, owner: input.owner, token, expires_at: now + input.ttlMs, ttl_ms: input.ttlMs }), previous_owner: claim.owner };
  });
}

// `claim ITEM --ask`: a visible hand-off request to the holder (its hooks and status line show it; it
// answers with `unclaim` or `transfer`). Undefined when nobody else holds the item.
export async function askHandoff(ctx: CoordContext, input: { item: string; owner: string; reason: string | null }): Promise<(ClaimState & { repeated?: boolean }) | undefined> {
  return writeTransaction(ctx, claimWriteScope(ctx), async (now) => {
    const claim = await activeClaim(ctx, input.item, now);
    if (!claim || claim.owner === input.owner) return undefined;
    const mine = (await handoffRequests(ctx.db, [claim.id], claim.token)).filter((row) => row.owner === input.owner);
    if (mine.length > 0 && mine[mine.length - 1]!.reason === input.reason) return { ...(await stateOf(ctx, claim, now)), repeated: true }; // asked already, in these words
    await lockEvent(ctx.db, 'handoff_requested', claim, now, { owner: input.owner, reason: input.reason, detail: { holder: claim.owner } });
    return stateOf(ctx, claim, now);
  });
}
