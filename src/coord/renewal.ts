import type { LockMode } from '../core/lock';
import type { Connection } from '../store/connection';
import { recordEvent, type EventType, type NewEvent } from '../store/events';
import { setExpiry, type StoredLock } from '../store/locks';

// What a `renewed` event records so that the log alone replays a lock's life: the new expiry and the mode
// after the renewal (stored in epoch ms like every detail time; `events` prints RFC 3339), and the mode before when a re-reserve switched shared/exclusive in place.
export function renewalDetail(expiresAt: number, mode: LockMode, previousMode?: LockMode): Record<string, unknown> {
  return { expires_at: expiresAt, mode, ...(previousMode !== undefined && previousMode !== mode ? { previous_mode: previousMode } : {}) };
}

// Extends one lock to now + ttlMs in the given mode and records it: the single way a renewal is written
// (renew, a lock -- CMD lease), so every `renewed` event carries what the log needs.
export async function extendLock(db: Connection, lock: Pick<StoredLock, 'seq' | 'id' | 'scope' | 'owner' | 'pattern' | 'mode'>, now: number, ttlMs: number): Promise<number> {
  const expiresAt = now + ttlMs;
  await setExpiry(db, lock.seq, expiresAt, ttlMs, lock.mode);
  await lockEvent(db, 'renewed', lock, now, { detail: renewalDetail(expiresAt, lock.mode) });
  return expiresAt;
}

// Records an event about one lock (its id, scope and pattern), by its owner unless `more` names another.
// `token`: the id an event that assigns a fencing token takes (store/events.ts, insertEvent).
type LockEventFields = Partial<Pick<NewEvent, 'owner' | 'reason' | 'detail'>> & { token?: number };
export async function lockEvent(db: Connection, type: EventType, lock: Pick<StoredLock, 'id' | 'scope' | 'owner' | 'pattern'>, now: number, more: LockEventFields = {}): Promise<void> {
  const event = { type, lock_id: lock.id, scope: lock.scope, owner: more.owner ?? lock.owner, pattern: lock.pattern, reason: more.reason ?? null, created_at: now, detail: more.detail };
  await recordEvent(db, event, more.token ?? null);
}
