import { recordEvent } from '../store/events';
import { extendOwnerLocks } from '../store/locks';
import { lastSeen, markSeen } from '../store/owners';
import { readTransaction, writeTransaction, type CoordContext } from './context';
import { EVERYTHING } from '../store/connection';

export const HEARTBEAT_SKIP_MS = 10_000;

// Renews every active lock and claim of the owner (every scope: an owner is one agent session) and records
// it as alive; only its own (core/authority.ts), and not the leases of its `lock -- CMD` runs, which
// renew themselves. Called on every tool use, so a call within HEARTBEAT_SKIP_MS of the last one only reads.
// Each heartbeat that writes also writes one `heartbeat` event (so at most one per owner per interval):
// the log then shows every extension (each active lock of the owner to created_at + its TTL) and the
// activity that keeps the owner's claims from looking stalled.
export async function heartbeat(ctx: CoordContext, owner: string, skipMs = HEARTBEAT_SKIP_MS): Promise<{ renewed: number; skipped: boolean; last_seen: number }> {
  const recent = await readTransaction(ctx, async (now) => {
    const seen = await lastSeen(ctx.db, owner);
    return seen !== undefined && now - seen < skipMs ? seen : undefined;
  });
  if (recent !== undefined) return { renewed: 0, skipped: true, last_seen: recent };
  // Every scope: the owner's locks may lie in any of them.
  return writeTransaction(ctx, EVERYTHING, async (now) => {
    const renewed = await extendOwnerLocks(ctx.db, owner, now);
    await markSeen(ctx.db, owner, now);
    await recordEvent(ctx.db, { type: 'heartbeat', lock_id: null, scope: ctx.scope, owner, pattern: null, reason: null, created_at: now, detail: { renewed, interval_ms: skipMs } });
    return { renewed, skipped: false, last_seen: now };
  });
}
