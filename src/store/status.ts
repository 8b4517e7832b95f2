import type { Connection } from './connection';
import { firstEventIdSince } from './events';

// Owners refused (a `conflict` event) in the scope since `since`, each with the lock that refused it, and
// granted nothing since. The window starts at an event id found by time (events have no time index), so a
// clock stepped back can hide a conflict from this hint.
export async function refusedSince(db: Connection, scope: string, since: number): Promise<{ owner: string; lock_id: string }[]> {
  return (await db
    .prepare(
      "SELECT DISTINCT c.owner, c.lock_id FROM events c WHERE c.id >= ? AND c.type = 'conflict' AND c.scope = ? AND c.created_at >= ? " +
        "AND NOT EXISTS (SELECT 1 FROM events g WHERE g.id > c.id AND g.owner = c.owner AND g.scope = c.scope AND g.type IN ('reserved', 'renewed', 'waited'))",
    )
    .all(await firstEventIdSince(db, since), scope, since)) as { owner: string; lock_id: string }[];
}
