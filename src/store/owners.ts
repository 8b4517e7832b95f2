import { dialect, runWithoutResult, type Connection } from './connection';

export async function lastSeen(db: Connection, owner: string): Promise<number | undefined> {
  return ((await db.prepare('SELECT last_seen FROM owners WHERE owner = ?').get(owner)) as { last_seen: number } | undefined)?.last_seen;
}

// Two-argument max() is SQLite's; PostgreSQL spells it GREATEST (and needs the table named beside excluded).
const MARK_SEEN = dialect({
  sqlite: 'INSERT INTO owners (owner, last_seen) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)',
  postgres: 'INSERT INTO owners (owner, last_seen) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET last_seen = GREATEST(owners.last_seen, excluded.last_seen)',
});

export async function markSeen(db: Connection, owner: string, now: number): Promise<void> {
  await runWithoutResult(db.prepare(MARK_SEEN), owner, now);
}

export async function allLastSeen(db: Connection): Promise<Map<string, number>> {
  const rows = (await db.prepare('SELECT owner, last_seen FROM owners').all()) as { owner: string; last_seen: number }[];
  return new Map(rows.map((row) => [row.owner, row.last_seen]));
}
