import type { Connection } from './connection';
import { statement } from './statements';

export function lastSeen(db: Connection, owner: string): number | undefined {
  return (statement(db, 'SELECT last_seen FROM owners WHERE owner = ?').get(owner) as { last_seen: number } | undefined)?.last_seen;
}

export function markSeen(db: Connection, owner: string, now: number): void {
  statement(db, 'INSERT INTO owners (owner, last_seen) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET last_seen = max(last_seen, excluded.last_seen)').run(owner, now);
}

export function allLastSeen(db: Connection): Map<string, number> {
  const rows = statement(db, 'SELECT owner, last_seen FROM owners').all() as { owner: string; last_seen: number }[];
  return new Map(rows.map((row) => [row.owner, row.last_seen]));
}
