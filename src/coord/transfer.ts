import { checkTransferAuthority } from '../core/authority';
import { IcError } from '../core/errors';
import type { Lock } from '../core/lock';
import { nextEventId } from '../store/events';
import { getLock, reassign, withoutBase } from '../store/locks';
import { locksInView } from './list';
import { inChunks } from './chunks';
import { ownScope, readTransaction, viewWriteScope, type CoordContext } from './context';
import { lockEvent } from './renewal';

export interface TransferInput {
  from: string;
  to: string;
  /** Who does it: `from` itself, or anyone with `force` (core/authority.ts). */
  by: string;
  force: boolean;
  /** Only these locks: a file lock by its canonical pattern, a named lock or claim by its name. */
  only?: { file?: string; name?: string };
}

// Hands A's active locks in the scope (or only those on one pattern or name) to B, each with a new fencing
// token so that A's old tokens stop verifying. Each event records `by`. The locks are listed from a read
// snapshot and moved in chunks (coord/chunks.ts): each lock moves atomically, the set chunk by chunk.
export async function transfer(ctx: CoordContext, input: TransferInput): Promise<Lock[]> {
  if (input.from === input.to) throw new IcError('INVALID_INPUT', '--from and --to name the same owner');
  checkTransferAuthority(input.by, input.from, input.force);
  const forced = input.by !== input.from;
  const only = input.only;
  const held = await readTransaction(ctx, async (now) =>
    (await locksInView(ctx, false, { owner: input.from, activeAt: now }))
      .filter((lock) => only === undefined || lock.pattern === (lock.type === 'file' ? only.file : only.name))
      .map((lock) => lock.seq),
  );
  // A file pattern's locks are the scope's own; a name may be a named lock or a claim.
  const moved = await inChunks(ctx, only?.file !== undefined ? ownScope(ctx) : viewWriteScope(ctx), held, async (seq, now) => {
    const lock = await getLock(ctx.db, seq);
    if (!lock || lock.owner !== input.from || lock.released_at !== null || lock.expires_at <= now) return undefined; // changed since it was listed
    const token = (await nextEventId(ctx.db)).id; // the new token is the id of the event that records it
    await reassign(ctx.db, lock.seq, input.to, token);
    const detail = { from: input.from, by: input.by, forced, previous_token: lock.token, token };
    await lockEvent(ctx.db, 'transferred', lock, now, { owner: input.to, detail, token });
    return withoutBase({ ...lock, owner: input.to, token });
  });
  if (moved.length === 0) {
    const what = only ? ` matching ${only.file ?? only.name}` : '';
    throw new IcError('NOT_FOUND', `${input.from} holds no active locks${what} in ${ctx.scope}`, { from: input.from });
  }
  return moved;
}
