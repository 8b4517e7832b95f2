import { mayChange } from '../core/authority';
import type { Lock } from '../core/lock';
import { getLock, withoutBase } from '../store/locks';
import { locksInView } from './list';
import { extendLock } from './renewal';
import { inChunks } from './chunks';
import { readTransaction, viewWriteScope, type CoordContext } from './context';
import { EVERYTHING } from '../store/connection';

export interface RenewResult {
  locks: Lock[];
  not_renewed: { id: string; why: 'not_found' | 'not_owner' | 'not_active' }[];
}

type Outcome = { lock: Lock } | RenewResult['not_renewed'][number];

// Extends the owner's active locks by --ttl (or the TTL each was taken with); expired locks are not revived.
// Only one's own: there is no forced renew (core/authority.ts). All of an owner's locks are listed from a
// read snapshot and renewed in chunks (coord/chunks.ts), each row judged again inside its chunk.
export async function renew(ctx: CoordContext, input: { ids: string[]; owner: string; ttlMs?: number }): Promise<RenewResult> {
  const targets: ({ id: string } | { seq: number })[] =
    input.ids.length > 0
      ? [...new Set(input.ids)].map((id) => ({ id }))
      : await readTransaction(ctx, async (now) => (await locksInView(ctx, false, { owner: input.owner, activeAt: now })).map((lock) => ({ seq: lock.seq })));
  const result: RenewResult = { locks: [], not_renewed: [] };
  // A lock named by id may lie in any scope; all of an owner's are listed from the scopes `list` shows.
  const outcomes = await inChunks(ctx, input.ids.length > 0 ? EVERYTHING : viewWriteScope(ctx), targets, async (target, now): Promise<Outcome | undefined> => {
    const lock = await getLock(ctx.db, 'seq' in target ? target.seq : target.id);
    if ('seq' in target) {
      // Released, expired or handed on since it was listed: no longer the owner's to renew.
      if (!lock || lock.owner !== input.owner || lock.released_at !== null || lock.expires_at <= now) return undefined;
    } else {
      if (!lock) return { id: target.id, why: 'not_found' };
      if (!mayChange(input.owner, lock.owner, false)) return { id: target.id, why: 'not_owner' };
      if (lock.released_at !== null || lock.expires_at <= now) return { id: target.id, why: 'not_active' };
    }
    const ttlMs = input.ttlMs ?? lock.ttl_ms;
    return { lock: withoutBase({ ...lock, expires_at: await extendLock(ctx.db, lock, now, ttlMs), ttl_ms: ttlMs }) };
  });
  for (const outcome of outcomes) {
    if ('lock' in outcome) result.locks.push(outcome.lock);
    else result.not_renewed.push(outcome);
  }
  return result;
}
