import { dialect, runWithoutResult, type Connection, type DialectSql } from './connection';

// Every kind of event ic records (docs/reference.md lists what each means).
export type EventType =
  | 'reserved'
  | 'renewed'
  | 'released'
  | 'force_released'
  | 'expired'
  | 'transferred'
  | 'conflict'
  | 'waited'
  | 'heartbeat'
  | 'committed'
  | 'handoff_requested'
  | 'taken_over'
  | 'restored'
  | 'displaced'
  | 'unverified'
  | 'restore_refused'
  | 'late_write'
  | 'not_restored'
  | 'undone';

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
  /** The type of the event's lock (file, named, claim), read from the locks table; null once purged. */
  lock_type?: string | null;
}

// SQLite gives a null id the next rowid; PostgreSQL takes the id column's sequence, and returns the id.
const INSERT_EVENT = dialect({
  sqlite: 'INSERT INTO events (id, type, lock_id, scope, owner, pattern, reason, created_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  postgres: "INSERT INTO events (id, type, lock_id, scope, owner, pattern, reason, created_at, detail) VALUES (coalesce(?::bigint, nextval('events_id_seq')), ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
});

// Inserts an event and returns its id. `id` is for events that assign a fencing token (see nextEventId);
// every other event takes the next id (SQLite's next rowid), which is the same number.
export async function insertEvent(db: Connection, event: NewEvent, id: number | null = null): Promise<number> {
  return Number((await db.prepare(INSERT_EVENT).run(...eventParams(event, id))).lastInsertRowid);
}

// The same for an event whose id nobody reads: on a server it goes with the next statement (one round trip less).
export async function recordEvent(db: Connection, event: NewEvent, id: number | null = null): Promise<void> {
  await runWithoutResult(db.prepare(INSERT_EVENT), ...eventParams(event, id));
}

const eventParams = (e: NewEvent, id: number | null) => [id, e.type, e.lock_id, e.scope, e.owner, e.pattern, e.reason, e.created_at, e.detail ? JSON.stringify(e.detail) : null];

// One event by id (coord undo), with its detail as stored JSON.
export async function getEvent(db: Connection, id: number): Promise<StoredEvent | undefined> {
  return (await db.prepare('SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail FROM events WHERE id = ?').get(id)) as StoredEvent | undefined;
}

// The id the next token-assigning event will get, which is its fencing token and, for a grant, the new
// lock's key: one above every event id. Every token ever assigned was an event id, and the largest event
// id never goes back (purgeEvents keeps the newest event), so no counter is needed for tokens to rise
// forever. Call it inside the write transaction that inserts that event, once per event.
// PostgreSQL: writers of different scopes run at once, so max(id) + 1 would hand two of them one id; the
// id column's sequence hands out each id once and only upwards (a rolled-back one is skipped).
// `select` places that id's expression in a statement (a grant's key is drawn with its id's check: store/locks.ts).
export function withNextEventId(select: (nextId: string) => string): DialectSql {
  return dialect({ sqlite: select('(SELECT coalesce(max(id), 0) + 1 FROM events)'), postgres: select("nextval('events_id_seq')") });
}

const NEXT_EVENT_ID = withNextEventId((nextId) => `SELECT ${nextId} AS id`);

export async function nextEventId(db: Connection): Promise<{ id: number }> {
  return (await db.prepare(NEXT_EVENT_ID).get()) as { id: number };
}

// The first event id whose time is at or after `since`, found by bisecting the ids: commit order and
// clock agree on one host (`now` is read inside the write transaction), so created_at grows with id
// unless the clock is stepped back. For hints that must stay cheap; exact answers filter every event.
export async function firstEventIdSince(db: Connection, since: number): Promise<number> {
  const at = db.prepare('SELECT id, created_at FROM events WHERE id >= ? ORDER BY id LIMIT 1');
  const last = (await db.prepare('SELECT max(id) AS id FROM events').get()) as { id: number | null };
  let [low, high] = [0, (last.id ?? 0) + 1]; // the answer lies in (low, high]
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    const row = (await at.get(middle)) as { id: number; created_at: number } | undefined;
    if (!row || row.created_at >= since) high = middle;
    else low = row.id;
  }
  return high;
}

// Deletes events older than the cutoff but always keeps the newest one: fencing tokens (nextEventId) and
// consumer cursors rely on the largest event id never going back.
// Each purge that deletes anything is counted (see the purges table), in the same transaction.
// At most `rows` events per call, oldest id first (a bulk purge repeats it, one transaction each).
export async function purgeEvents(db: Connection, before: number, rows: number): Promise<number> {
  const deleted = (await db.prepare('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE created_at < ? AND id < (SELECT max(id) FROM events) ORDER BY id LIMIT ?)').run(before, rows)).changes;
  if (deleted > 0) await db.prepare('UPDATE purges SET count = count + 1 WHERE id = 1').run();
  return deleted;
}

export async function newestEventId(db: Connection): Promise<{ id: number; created_at: number } | undefined> {
  return (await db.prepare('SELECT id, created_at FROM events ORDER BY id DESC LIMIT 1').get()) as { id: number; created_at: number } | undefined;
}

// What purgeEvents would delete now, for a dry run.
export async function countEventsBefore(db: Connection, before: number): Promise<number> {
  return ((await db.prepare('SELECT count(*) AS n FROM events WHERE created_at < ? AND id < (SELECT max(id) FROM events)').get(before)) as { n: number }).n;
}

// PostgreSQL: only events no later commit can precede (ids come from a sequence and two scopes commit in
// parallel, so id 11 may commit before id 10; docs/postgres.md, "Events"): a cursor past 11 would skip 10.
const QUERY_EVENTS = dialect({
  sqlite:
    'SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail, (SELECT locks.type FROM locks WHERE locks.id = events.lock_id) AS lock_type FROM events WHERE id > ? AND created_at >= ? ORDER BY id LIMIT ?',
  postgres:
    'SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail, (SELECT locks.type FROM locks WHERE locks.id = events.lock_id) AS lock_type FROM events WHERE id > ? AND created_at >= ? AND xact < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY id LIMIT ?',
});

const QUERY_PROJECT_EVENTS = ofProject(QUERY_EVENTS);

export async function queryEvents(db: Connection, q: { afterId?: number; since?: number; limit: number; project?: string }): Promise<StoredEvent[]> {
  if (q.project === undefined) return (await db.prepare(QUERY_EVENTS).all(q.afterId ?? 0, q.since ?? 0, q.limit)) as StoredEvent[];
  return (await db.prepare(QUERY_PROJECT_EVENTS).all(q.afterId ?? 0, q.since ?? 0, ...projectParams(q.project), q.limit)) as StoredEvent[];
}

/**
 * A server holds many projects' events, and a project reads only its own: those of its scope (the project key)
 * and of the scopes under it (`KEY:dir`, from --scope; a key has no ':'). A SQLite file is one repository's: it reads them all.
 * The statement with the filter before its ORDER BY or GROUP BY; it takes projectParams(key) there.
 */
export function ofProject(sql: DialectSql): DialectSql {
  const filter = (text: string) => text.replace(/ (ORDER|GROUP) BY /, ' AND (scope = ? OR substr(scope, 1, length(?)) = ?) $1 BY ');
  return dialect({ sqlite: filter(sql.sqlite), postgres: filter(sql.postgres) });
}

/** The parameters ofProject's filter takes, for the project `key`. */
export function projectParams(key: string): string[] {
  return [key, `${key}:`, `${key}:`];
}

/**
 * Where a reader of the log stands: after event `id` of transaction `xact`. On PostgreSQL readers go in
 * (transaction, id) order: ids come from a sequence and two scopes commit out of id order, and a transaction
 * that finishes later always has a larger transaction id than every one already read below the bound
 * (docs/postgres.md, "Ids in commit order"). On SQLite ids are in commit order and `xact` is always '0'.
 */
export interface EventCursor {
  xact: string;
  id: number;
}

export const LOG_START: EventCursor = { xact: '0', id: 0 };

export type PositionedEvent = StoredEvent & { xact: string };

// Both texts take (cursor xact, cursor id, floor id, since, limit) in that order; SQLite hands the cursor's
// '0' back as every event's xact. ORDER BY names the column: a bare `xact` is the text output column, whose
// order ('10' before '9') is not the transactions'.
const EVENTS_AFTER_CURSOR = dialect({
  sqlite:
    'SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail, (SELECT locks.type FROM locks WHERE locks.id = events.lock_id) AS lock_type, ? AS xact FROM events WHERE id > ? AND id > ? AND created_at >= ? ORDER BY id LIMIT ?',
  postgres:
    'SELECT id, type, lock_id, scope, owner, pattern, reason, created_at, detail, (SELECT locks.type FROM locks WHERE locks.id = events.lock_id) AS lock_type, xact::text AS xact FROM events WHERE (xact, id) > (?::xid8, ?) AND id > ? AND created_at >= ? AND xact < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY events.xact, events.id LIMIT ?',
});

const PROJECT_EVENTS_AFTER_CURSOR = ofProject(EVENTS_AFTER_CURSOR);

/** The events after `cursor` that no later commit can precede, in reading order; none with an id at or below `floorId`; with `project`, that project's only. */
export async function eventsAfterCursor(db: Connection, cursor: EventCursor, q: { floorId: number; since?: number; limit: number; project?: string }): Promise<PositionedEvent[]> {
  const at = [cursor.xact, cursor.id, q.floorId, q.since ?? 0];
  if (q.project === undefined) return (await db.prepare(EVENTS_AFTER_CURSOR).all(...at, q.limit)) as PositionedEvent[];
  return (await db.prepare(PROJECT_EVENTS_AFTER_CURSOR).all(...at, ...projectParams(q.project), q.limit)) as PositionedEvent[];
}

/** The cursor after `event` (the last one a reader took). */
export function cursorAfter(event: PositionedEvent): EventCursor {
  return { xact: event.xact, id: event.id };
}

/** A consumer: its name, within a project on a server (each project has its own cursor of a name); project '' on SQLite, whose file is one repository's. */
export type Consumer = { project: string; name: string };

// Readers of one consumer take turns, and nothing else waits for them: on PostgreSQL a transaction-scoped
// advisory lock on the consumer (class 713013, hashtext of project and name: the two-key form, which never meets
// the write path's one-key or owner locks; a hash collision only makes two consumers take turns), sent with the
// next statement (the cursor's read), whose snapshot then sees the previous reader's advance. On SQLite every
// write transaction is already alone.
const LOCK_CONSUMER = "SELECT pg_advisory_xact_lock(713013, hashtext(?::text || ' ' || ?::text))";

/** First thing in the consumer's write transaction: no other reader of it is in one after this (its lock wait bounds the wait). */
export async function lockConsumer(db: Connection, consumer: Consumer): Promise<void> {
  if (db.engine === 'postgres') await runWithoutResult(db.prepare(LOCK_CONSUMER), consumer.project, consumer.name);
}

// Both take (name, project). PostgreSQL: a project without a cursor of its own starts at the one saved before
// cursors had projects (project '', schema/postgres/0005): '' sorts first, so the project's own row wins.
const CONSUMER_POSITION = dialect({
  sqlite: 'SELECT last_event, NULL AS last_xact FROM consumers WHERE name = ? AND ? IS NOT NULL',
  postgres: "SELECT last_event, last_xact::text AS last_xact FROM consumers WHERE name = ? AND project IN (?, '') ORDER BY project DESC LIMIT 1",
});

/** A consumer's cursor; one saved without a transaction (SQLite, or PostgreSQL before schema 3) is an id floor. */
export async function consumerPosition(db: Connection, consumer: Consumer): Promise<{ cursor: EventCursor; floorId: number }> {
  const row = (await db.prepare(CONSUMER_POSITION).get(consumer.name, consumer.project)) as { last_event: number; last_xact: string | null } | undefined;
  if (row?.last_xact) return { cursor: { xact: row.last_xact, id: row.last_event }, floorId: 0 };
  return { cursor: LOG_START, floorId: row?.last_event ?? 0 };
}

// Both take (name, event id, time, xact, project). SQLite keeps neither xact nor project: its SELECT form takes
// them in a WHERE that is always true (an upsert's SELECT needs a WHERE anyway).
const ADVANCE_CONSUMER = dialect({
  sqlite:
    'INSERT INTO consumers (name, last_event, updated_at) SELECT ?, ?, ? WHERE ? IS NOT NULL AND ? IS NOT NULL ON CONFLICT (name) DO UPDATE SET last_event = excluded.last_event, updated_at = excluded.updated_at',
  postgres:
    'INSERT INTO consumers (name, last_event, updated_at, last_xact, project) VALUES (?, ?, ?, ?::xid8, ?) ON CONFLICT (project, name) DO UPDATE SET last_event = excluded.last_event, updated_at = excluded.updated_at, last_xact = excluded.last_xact',
});

// Sent with the commit where the engine can (one round trip fewer while the consumer's lock is held).
export async function advanceConsumer(db: Connection, consumer: Consumer, last: PositionedEvent, now: number): Promise<void> {
  await runWithoutResult(db.prepare(ADVANCE_CONSUMER), consumer.name, last.id, now, last.xact, consumer.project);
}
