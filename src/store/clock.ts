import type Database from 'better-sqlite3';
import { statement } from './statements';

// The time of the newest event (by id, the primary key: one index probe), or null in an empty log.
export function newestEventTime(db: Database.Database): number | null {
  const row = statement(db, 'SELECT created_at FROM events ORDER BY id DESC LIMIT 1').get() as { created_at: number } | undefined;
  return row ? row.created_at : null;
}
