import type Database from 'better-sqlite3';
import { statement } from './statements';

// The newest event id: a snapshot's position in the event log, to ask later what changed since.
export function lastEventId(db: Database.Database): number {
  return (statement(db, 'SELECT coalesce(max(id), 0) AS id FROM events').get() as { id: number }).id;
}

// The events that change a lock's row in a way that can make it bind someone it did not bind before:
// a grant, a renewal (longer, or shared→exclusive), a release or expiry, a transfer to another owner.
const LOCK_CHANGING = "'reserved', 'renewed', 'released', 'force_released', 'expired', 'transferred'";

// Ids of the locks in `scope` that such events touched after event `afterId`. Event ids grow in commit
// order (each is taken inside the write transaction that commits it), so this is every such change
// committed since the snapshot that read `afterId`.
export function locksChangedSince(db: Database.Database, afterId: number, scope: string): string[] {
  const rows = statement(db, `SELECT DISTINCT lock_id FROM events WHERE id > ? AND scope = ? AND lock_id IS NOT NULL AND type IN (${LOCK_CHANGING})`).all(afterId, scope) as { lock_id: string }[];
  return rows.map((row) => row.lock_id);
}

// The floor under the next fencing token. A purge of events raises it to the newest event id first
// (store/events.ts), so a floor above a snapshot's event id says events after the snapshot may be gone.
export function tokenFloor(db: Database.Database): number {
  return (statement(db, "SELECT coalesce((SELECT value FROM counters WHERE name = 'token_floor'), 0) AS value").get() as { value: number }).value;
}
