import type { StoredEvent } from '../events';
import type { PostgresConnection } from './connection';

// Event ids come from a sequence: a number is taken when a transaction asks for it, not when it commits. Two
// scopes' transactions run in parallel, so event 11 may commit before event 10. A follower that reads
// `id > cursor` and moves its cursor to 11 would never see 10. It must read only events whose transaction is
// older than every transaction still running (the snapshot's xmin): those can no longer be joined by a
// smaller id. The price: a follower waits for the oldest running transaction of the whole server (ic's own
// are one command's work).
export const FINISHED_EVENTS = 'xact < pg_snapshot_xmin(pg_current_snapshot())';

// The next events after `afterId` that no later commit can precede, in id order.
export function finishedEventsAfter(db: PostgresConnection, afterId: number, limit: number): Promise<StoredEvent[]> {
  return db.all<StoredEvent>(`SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail FROM events WHERE id > ? AND ${FINISHED_EVENTS} ORDER BY id LIMIT ?`, [afterId, limit]);
}
