import { mayChange } from '../core/authority';
import { IcError } from '../core/errors';
import { overlaps } from '../core/glob';
import type { Lock, LockType } from '../core/lock';
import { getLock, listLocks, markReleased, withoutBase, type StoredLock } from '../store/locks';
import { inChunks } from './chunks';
import { locksInView } from './list';
import { readTransaction, viewWriteScope, type CoordContext } from './context';
import { EVERYTHING } from '../store/connection';
import { lockEvent } from './renewal';

export interface ReleaseInput {
  ids: string[];
  /** Who releases: required, and recorded as `by` when the release is forced (core/authority.ts). */
  owner: string | undefined;
  /** Canonical pattern (file) to release by. */
  pattern?: string;
  type?: LockType;
  /** Release all of the owner's locks in the scope, of `allTypes` (every type when absent). */
  all: boolean;
  allTypes?: readonly LockType[];
  force: boolean;
  reason: string | null;
  /** How the release is recorded when it is not forced: `released`, or e.g. `session_end`. */
  releaseReason?: string;
}

export type NotReleasedWhy = 'not_found' | 'not_owner' | 'already_released';

export interface ReleaseResult {
  released: Lock[];
  /** `owner`: who holds it, for not_owner (so the refusal can say whose lock it is). */
  not_released: { id: string; why: NotReleasedWhy; owner?: string }[];
  /** With `pattern` and nothing on exactly it: the active file locks it overlaps, to say what was meant. */
  near?: Lock[];
}

// Releases what was asked for: only the owner's own locks, unless --force, which is audited as force_released.
// Many locks (--all of 50,000) are released in chunks, each its own transaction (coord/chunks.ts).
export async function release(ctx: CoordContext, input: ReleaseInput): Promise<ReleaseResult> {
  if (input.ids.length === 0 && input.pattern === undefined && !input.all) {
    throw new IcError('USAGE', 'say what to release: lock IDs, --pattern P or --all', { hint: 'Try: coord release --all --owner alice' });
  }
  if (!input.owner) {
    throw new IcError('USAGE', 'an owner is required: pass --owner NAME or set IC_OWNER (a forced release records who did it)', { hint: 'Try: export IC_OWNER=alice' });
  }
  const owner = input.owner;
  // What to release is listed from a read snapshot (no write lock); each row is then judged again as it
  // is inside the chunk that releases it (docs/guarantees.md, "Bulk operations").
  const { targets, near } = await readTransaction(ctx, async (now) => listTargets(ctx, input, owner, now));
  const result: ReleaseResult = { released: [], not_released: [] };
  // A lock named by id may lie in any scope; --pattern and --all act in the scopes `list` shows.
  const outcomes = await inChunks(ctx, input.ids.length > 0 ? EVERYTHING : viewWriteScope(ctx), targets, (target, now) => releaseTarget(ctx, input, owner, target, now));
  for (const outcome of outcomes) {
    if ('lock' in outcome) result.released.push(outcome.lock);
    else result.not_released.push(outcome);
  }
  if (near) result.near = near;
  return result;
}

// A lock asked for by id (judged in full when its chunk runs), or one found by --pattern or --all.
type Target = { id: string } | { seq: number };

async function listTargets(ctx: CoordContext, input: ReleaseInput, owner: string, now: number): Promise<{ targets: Target[]; near?: Lock[] }> {
  const targets: Target[] = [...new Set(input.ids)].map((id) => ({ id }));
  const seen = new Set<number>(); // a lock matched twice is released once: no search of what is done
  const add = (lock: StoredLock) => {
    if (!seen.has(lock.seq)) (seen.add(lock.seq), targets.push({ seq: lock.seq }));
  };
  let near: Lock[] | undefined;
  if (input.pattern !== undefined) {
    // --force with a pattern takes whoever holds it.
    const byPattern = await listLocks(ctx.db, { scope: ctx.scope, owner: input.force ? undefined : owner, pattern: input.pattern, type: input.type, unreleased: true });
    byPattern.forEach(add);
    if (byPattern.length === 0 && input.type === 'file') near = await nearMatches(ctx, input.pattern, input.force ? undefined : owner, now);
  }
  if (input.all) {
    // --all is always the owner's own locks, forced or not.
    const types = new Set(input.allTypes ?? ['file', 'named', 'claim']);
    for (const lock of await locksInView(ctx, false, { owner, unreleased: true })) if (types.has(lock.type)) add(lock);
  }
  return { targets, near };
}

type TargetOutcome = { lock: Lock } | { id: string; why: NotReleasedWhy; owner?: string };

// Inside a chunk's write transaction: the row as it is now decides.
async function releaseTarget(ctx: CoordContext, input: ReleaseInput, owner: string, target: Target, now: number): Promise<TargetOutcome | undefined> {
  const lock = await getLock(ctx.db, 'id' in target ? target.id : target.seq);
  if ('id' in target) {
    if (!lock) return { id: target.id, why: 'not_found' };
    if (lock.released_at !== null) return { id: target.id, why: 'already_released' };
    if (!mayChange(owner, lock.owner, input.force)) return { id: target.id, why: 'not_owner', owner: lock.owner };
  } else {
    // Released since it was listed (or by an id earlier in this call), or handed to someone else: not ours to release now.
    if (!lock || lock.released_at !== null) return undefined;
    if (lock.owner !== owner && !(input.force && input.pattern !== undefined && lock.pattern === input.pattern)) return undefined;
  }
  return releaseRow(ctx, input, owner, lock, now);
}

async function releaseRow(ctx: CoordContext, input: ReleaseInput, owner: string, lock: StoredLock, now: number): Promise<TargetOutcome | undefined> {
  const forced = lock.owner !== owner;
  const why = forced ? 'force_released' : (input.releaseReason ?? 'released');
  if (!(await markReleased(ctx.db, lock.seq, now, why))) return undefined;
  await lockEvent(ctx.db, forced ? 'force_released' : 'released', lock, now, { reason: input.reason, detail: forced ? { by: owner } : null });
  return { lock: withoutBase({ ...lock, released_at: now, release_reason: why }) };
}

// The active file locks whose patterns overlap `pattern`: `release --pattern 'src/*'` when `src/**` is held.
async function nearMatches(ctx: CoordContext, pattern: string, owner: string | undefined, now: number): Promise<Lock[]> {
  const active = await listLocks(ctx.db, { scope: ctx.scope, owner, type: 'file', activeAt: now });
  return active
    .filter((lock) => overlapsSafely(pattern, lock.pattern))
    .slice(0, 10)
    .map(withoutBase);
}

// A hint must never fail the command: a pair past the complexity limits is simply not listed.
function overlapsSafely(a: string, b: string): boolean {
  try {
    return overlaps(a, b).overlap;
  } catch {
    return false;
  }
}
