import type { PostgresConnection } from '../../src/store/postgres/connection';

// Replays the scope's events in id order (under the scope lock, id order is commit order) and counts every
// grant of a pattern that another owner still held; then checks the lock rows themselves.
export async function doubleGrants(db: PostgresConnection, scope: string): Promise<{ replayed: number; live: number; grants: number }> {
  const holder = new Map<string, string>();
  let replayed = 0;
  let grants = 0;
  for (const event of await db.all<{ type: string; owner: string; pattern: string }>('SELECT type, owner, pattern FROM events WHERE scope = ? ORDER BY id', [scope])) {
    if (event.type === 'reserved') {
      grants += 1;
      if (holder.has(event.pattern)) replayed += 1;
      holder.set(event.pattern, event.owner);
    } else if (event.type === 'released' && holder.get(event.pattern) === event.owner) {
      holder.delete(event.pattern);
    }
  }
  const live = (await db.get<{ n: number }>('SELECT count(*) AS n FROM (SELECT pattern FROM locks WHERE scope = ? AND released_at IS NULL GROUP BY pattern HAVING count(*) > 1) AS doubled', [scope]))!
    .n;
  return { replayed, live, grants };
}
