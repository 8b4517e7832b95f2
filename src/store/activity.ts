import type { Connection } from './connection';

// An owner's last sign of life: its newest event of any kind (grants, renewals, heartbeats, commits…) or
// its heartbeat record. Scans the events by owner (no index on owner): for sweeps and claim views, not hooks.
export async function lastActivity(db: Connection, owner: string): Promise<number | undefined> {
  const row = (await db
    .prepare('SELECT max(t) AS t FROM (SELECT max(created_at) AS t FROM events WHERE owner = ? UNION ALL SELECT last_seen AS t FROM owners WHERE owner = ?) AS signs')
    .get(owner, owner)) as { t: number | null };
  return row.t ?? undefined;
}

// The same for every owner at once.
export async function allLastActivity(db: Connection): Promise<Map<string, number>> {
  const rows = (await db
    .prepare('SELECT owner, max(t) AS t FROM (SELECT owner, max(created_at) AS t FROM events GROUP BY owner UNION ALL SELECT owner, last_seen AS t FROM owners) AS signs GROUP BY owner')
    .all()) as { owner: string; t: number }[];
  return new Map(rows.map((row) => [row.owner, row.t]));
}
