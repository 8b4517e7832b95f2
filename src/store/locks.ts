import type Database from 'better-sqlite3';
import type { Lock, LockMode, LockType } from '../core/lock';
import { statement } from './statements';

export interface StoredLock extends Lock {
  base: string;
  ttl_ms: number;
}

const COLUMNS = 'id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms, released_at, release_reason';

// Takes the next fencing token: strictly increasing across the database and never reused.
export function nextToken(db: Database.Database): number {
  const row = statement(db, "UPDATE counters SET value = value + 1 WHERE name = 'fencing_token' RETURNING value").get() as { value: number };
  return row.value;
}

export function insertLock(db: Database.Database, lock: StoredLock): void {
  statement(db, `INSERT INTO locks (${COLUMNS}) VALUES (@id, @token, @type, @scope, @pattern, @base, @owner, @mode, @reason, @created_at, @expires_at, @ttl_ms, @released_at, @release_reason)`).run(lock);
}

export function getLock(db: Database.Database, id: string): StoredLock | undefined {
  return statement(db, `SELECT ${COLUMNS} FROM locks WHERE id = ?`).get(id) as StoredLock | undefined;
}

// Every path-prefix of a literal base ('' included): the bases of locks that may contain ours.
export function basePrefixes(base: string): string[] {
  const prefixes = [''];
  if (base === '') return prefixes;
  const segments = base.split('/');
  for (let i = 1; i <= segments.length; i++) prefixes.push(segments.slice(0, i).join('/'));
  return prefixes;
}

// Locks that may bind a request in (scope, type) with this literal base: unreleased ones whose base is a
// prefix of ours or lies below it, plus locks swept as expired recently enough to be in their lock-delay.
// Separate SELECTs joined by UNION ALL, because SQLite will not use the base index for an OR of the two;
// callers deduplicate by id.
export function findCandidates(db: Database.Database, q: { scope: string; type: LockType; base: string; delayCutoff: number }): StoredLock[] {
  const isFile = q.type === 'file';
  const prefixes = isFile ? basePrefixes(q.base) : [q.base]; // names and claims compare by equality
  const unreleased = `SELECT ${COLUMNS} FROM locks WHERE scope = ? AND type = ? AND released_at IS NULL`;
  const parts = [`${unreleased} AND base IN (${prefixes.map(() => '?').join(', ')})`];
  const params: unknown[] = [q.scope, q.type, ...prefixes];
  if (isFile && q.base === '') {
    parts[0] = unreleased; // a pattern with no literal base may overlap anything in the scope
    params.splice(2);
  } else if (isFile) {
    parts.push(`${unreleased} AND base >= ? AND base < ?`); // strictly below our base: '0' sorts right after '/'
    params.push(q.scope, q.type, `${q.base}/`, `${q.base}0`);
  }
  parts.push(`SELECT ${COLUMNS} FROM locks WHERE scope = ? AND type = ? AND release_reason = 'expired' AND expires_at > ?`);
  params.push(q.scope, q.type, q.delayCutoff);
  return statement(db, parts.join(' UNION ALL ')).all(...params) as StoredLock[];
}

export function setExpiry(db: Database.Database, id: string, expiresAt: number, ttlMs: number, mode: LockMode): void {
  statement(db, 'UPDATE locks SET expires_at = ?, ttl_ms = ?, mode = ? WHERE id = ?').run(expiresAt, ttlMs, mode, id);
}

// Marks a lock released once; returns false when it already was (so no second event is written).
export function markReleased(db: Database.Database, id: string, at: number, reason: string): boolean {
  return statement(db, 'UPDATE locks SET released_at = ?, release_reason = ? WHERE id = ? AND released_at IS NULL').run(at, reason, id).changes === 1;
}

export function reassign(db: Database.Database, id: string, owner: string, token: number): void {
  statement(db, 'UPDATE locks SET owner = ?, token = ? WHERE id = ?').run(owner, token, id);
}

export interface LockFilter {
  scope?: string;
  owner?: string;
  type?: LockType;
  /** Only locks active at this instant. */
  activeAt?: number;
  /** Only locks expiring before this instant. */
  expiresBefore?: number;
  pattern?: string;
  limit?: number;
}

// Lists locks by the given filter, oldest grant first.
export function listLocks(db: Database.Database, filter: LockFilter): StoredLock[] {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.scope !== undefined) (where.push('scope = ?'), params.push(filter.scope));
  if (filter.owner !== undefined) (where.push('owner = ?'), params.push(filter.owner));
  if (filter.type !== undefined) (where.push('type = ?'), params.push(filter.type));
  if (filter.pattern !== undefined) (where.push('pattern = ?'), params.push(filter.pattern));
  if (filter.activeAt !== undefined) (where.push('released_at IS NULL AND expires_at > ?'), params.push(filter.activeAt));
  if (filter.expiresBefore !== undefined) (where.push('expires_at <= ?'), params.push(filter.expiresBefore));
  const sql = `SELECT ${COLUMNS} FROM locks${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY token${filter.limit ? ' LIMIT ?' : ''}`;
  if (filter.limit) params.push(filter.limit);
  return statement(db, sql).all(...params) as StoredLock[];
}

// Unreleased locks whose TTL has run out: what a sweep marks as expired.
export function listLapsed(db: Database.Database, now: number, scope?: string): StoredLock[] {
  const sql = `SELECT ${COLUMNS} FROM locks WHERE released_at IS NULL AND expires_at <= ?${scope ? ' AND scope = ?' : ''} ORDER BY token`;
  return statement(db, sql).all(...(scope ? [now, scope] : [now])) as StoredLock[];
}

// base and ttl_ms are storage detail; callers outside the store see plain locks.
export function withoutBase(lock: StoredLock): Lock {
  const { base: _base, ttl_ms: _ttl, ...rest } = lock;
  return rest;
}

// Deletes released locks older than the cutoff (the cleanup loop for every creation loop).
export function purgeReleased(db: Database.Database, releasedBefore: number): number {
  return statement(db, 'DELETE FROM locks WHERE released_at IS NOT NULL AND released_at < ?').run(releasedBefore).changes;
}

export function countReleasedBefore(db: Database.Database, releasedBefore: number): number {
  return (statement(db, 'SELECT COUNT(*) AS n FROM locks WHERE released_at IS NOT NULL AND released_at < ?').get(releasedBefore) as { n: number }).n;
}

// Pushes expiry out for every active lock of an owner (all scopes), each by the TTL it was taken with.
export function extendOwnerLocks(db: Database.Database, owner: string, now: number): number {
  return statement(db, 'UPDATE locks SET expires_at = ? + ttl_ms WHERE owner = ? AND released_at IS NULL AND expires_at > ? AND expires_at < ? + ttl_ms').run(now, owner, now, now).changes;
}
