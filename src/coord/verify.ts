import type { Lock } from '../core/lock';
import { getLock, withoutBase } from '../store/locks';
import { readTransaction, type CoordContext } from './context';

export type VerifyResult = { valid: true; lock: Lock } | { valid: false; why: 'not_found' | 'token_mismatch' | 'released' | 'expired'; lock?: Lock };

// The fence: a lock is valid for a token only while it is active and was not re-granted or transferred since.
export async function verify(ctx: CoordContext, id: string, token: number): Promise<VerifyResult> {
  return readTransaction(ctx, async (now) => {
    const stored = await getLock(ctx.db, id);
    if (!stored) return { valid: false, why: 'not_found' };
    const lock = withoutBase(stored);
    if (lock.token !== token) return { valid: false, why: 'token_mismatch', lock };
    if (lock.released_at !== null) return { valid: false, why: 'released', lock };
    if (lock.expires_at <= now) return { valid: false, why: 'expired', lock };
    return { valid: true, lock };
  });
}
