import { dialect, type Connection } from './connection';

export function lastSeen(db: Connection, owner: string): number | undefined {
  return (db.prepare('SELECT last_seen FROM owners WHERE owner = ?').get(owner) as { last_seen: number } | undefined)?.last_seen;
}

// Two-argument max() is SQLite's; PostgreSQL spells it GREATEST (and needs the table named beside excluded).
const MARK_SEEN = dialect({
  sqlite: 'INSERT INTO owners (owner, last_seen) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)',
  postgres: 'INSERT INTO owners (owner, last_seen) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET last_seen = GREATEST(owners.last_seen, excluded.last_seen)',
});

export function markSeen(db: Connection, owner: string, now: number): void {
  db.prepare(MARK_SEEN).run(owner, now);
}

export function allLastSeen(db: Connection): Map<string, number> {
  const rows = db.prepare('SELECT owner, last_seen FROM owners').all() as { owner: string; last_seen: number }[];
  return new Map(rows.map((row) => [row.owner, row.last_seen]));
}
