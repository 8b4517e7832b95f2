import type { Connection } from './connection';

// The newest event id: a snapshot's position in the event log, to ask later what changed since.
export async function lastEventId(db: Connection): Promise<number> {
  return ((await db.prepare('SELECT coalesce(max(id), 0) AS id FROM events').get()) as { id: number }).id;
}

// Where reserve's read snapshot stands in the log, to bring its decision up to date inside the write lock
// (locksChangedSince with the same scope). SQLite: the newest event (one writer at a time, ids in commit
// order). PostgreSQL: the newest event of the scope. Ids come from a sequence when a writer asks, so another
// scope may commit a larger id while a writer of this scope still holds a smaller one uncommitted: past the
// global newest id, that event would never be looked at, and two grants could overlap. Every writer of a
// scope holds its lock (or the lock of everything), so the scope's committed events all precede any id a
// writer of it still has in flight.
export async function snapshotEventId(db: Connection, scope: string): Promise<number> {
  if (db.engine !== 'postgres') return lastEventId(db);
  return ((await db.prepare('SELECT coalesce(max(id), 0) AS id FROM events WHERE scope = ?').get(scope)) as { id: number }).id;
}

// The events that change a lock's row in a way that can make it bind someone it did not bind before:
// a grant, a renewal (longer, or shared→exclusive), a release or expiry, a transfer to another owner.
const LOCK_CHANGING = "'reserved', 'renewed', 'released', 'force_released', 'expired', 'transferred'";

// Ids of the locks in `scope` that such events touched after event `afterId`. Event ids grow in commit
// order (each is taken inside the write transaction that commits it), so this is every such change
// committed since the snapshot that read `afterId`.
export async function locksChangedSince(db: Connection, afterId: number, scope: string): Promise<string[]> {
  const rows = (await db.prepare(`SELECT DISTINCT lock_id FROM events WHERE id > ? AND scope = ? AND lock_id IS NOT NULL AND type IN (${LOCK_CHANGING})`).all(afterId, scope)) as { lock_id: string }[];
  return rows.map((row) => row.lock_id);
}

// How many purges have deleted events so far: a count that moved since a snapshot says events after the
// snapshot may be gone, so what changed since cannot be told from the log.
export async function purgeCount(db: Connection): Promise<number> {
  return ((await db.prepare('SELECT count FROM purges WHERE id = 1').get()) as { count: number }).count;
}
