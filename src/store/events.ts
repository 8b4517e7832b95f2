import type Database from 'better-sqlite3';
import { statement } from './statements';

export type EventType = 'reserved' | 'renewed' | 'released' | 'force_released' | 'expired' | 'transferred' | 'conflict' | 'waited';

export interface NewEvent {
  type: EventType;
  lock_id: string | null;
  scope: string;
  owner: string;
  pattern: string | null;
  reason: string | null;
  created_at: number;
  detail?: Record<string, unknown> | null;
}

export interface StoredEvent extends Omit<NewEvent, 'detail'> {
  id: number;
  detail: string | null;
}

export function insertEvent(db: Database.Database, event: NewEvent): number {
  const result = statement(db, 'INSERT INTO events (type, lock_id, scope, owner, pattern, reason, created_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
    event.type,
    event.lock_id,
    event.scope,
    event.owner,
    event.pattern,
    event.reason,
    event.created_at,
    event.detail ? JSON.stringify(event.detail) : null,
  );
  return Number(result.lastInsertRowid);
}

// Deletes events older than the cutoff but always keeps the newest one: event ids (and consumer cursors)
// rely on SQLite never reusing a rowid below the current maximum.
export function purgeEvents(db: Database.Database, before: number): number {
  return statement(db, 'DELETE FROM events WHERE created_at < ? AND id < (SELECT max(id) FROM events)').run(before).changes;
}

export function countEventsBefore(db: Database.Database, before: number): number {
  return (statement(db, 'SELECT COUNT(*) AS n FROM events WHERE created_at < ? AND id < (SELECT max(id) FROM events)').get(before) as { n: number }).n;
}

export interface EventQuery {
  afterId?: number;
  since?: number;
  limit: number;
}

export function queryEvents(db: Database.Database, q: EventQuery): StoredEvent[] {
  return statement(db, 'SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail FROM events WHERE id > ? AND created_at >= ? ORDER BY id LIMIT ?').all(
    q.afterId ?? 0,
    q.since ?? 0,
    q.limit,
  ) as StoredEvent[];
}

export function consumerCursor(db: Database.Database, name: string): number {
  const row = statement(db, 'SELECT last_event FROM consumers WHERE name = ?').get(name) as { last_event: number } | undefined;
  return row?.last_event ?? 0;
}

export function advanceConsumer(db: Database.Database, name: string, lastEvent: number, now: number): void {
  statement(db, 'INSERT INTO consumers (name, last_event, updated_at) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET last_event = excluded.last_event, updated_at = excluded.updated_at').run(name, lastEvent, now);
}
