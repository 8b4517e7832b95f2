import { runWithoutResult, type Connection } from './connection';
import { withNextEventId } from './events';
import { plainLock, type Lock, type LockMode, type LockType } from '../core/lock';
import { randomId } from '../core/ids';

export interface StoredLock extends Lock {
  /** The row's key: the id of the event that recorded the grant. */
  seq: number;
  base: string;
  ttl_ms: number;
}

const COLUMN_NAMES = ['seq', 'id', 'token', 'type', 'scope', 'pattern', 'base', 'owner', 'mode', 'reason', 'created_at', 'expires_at', 'ttl_ms', 'released_at', 'release_reason'] as const;
const COLUMNS = COLUMN_NAMES.join(', ');

// A lock's key, the id of the event that will record its grant (drawn as nextEventId draws it), and its public id, random and
// drawn again while a lock has it (locks_by_id is UNIQUE): the key and the first draw's check in one round trip.
const NEXT_KEY = withNextEventId((nextId) => `SELECT ${nextId} AS seq, EXISTS (SELECT 1 FROM locks WHERE id = ?) AS taken`);
export async function allocateLockKey(db: Connection, newId: () => string = randomId): Promise<{ seq: number; id: string }> {
  let id = newId();
  const { seq, taken } = (await db.prepare(NEXT_KEY).get(id)) as { seq: number; taken: unknown };
  for (let clash = taken; clash; clash = await db.prepare('SELECT 1 FROM locks WHERE id = ?').get(id)) id = newId(); // `newId`: tests make clashes
  return { seq, id };
}

// Positional parameters: better-sqlite3 binds them about twice as fast as named ones.
export async function insertLock(db: Connection, lock: StoredLock): Promise<void> {
  await runWithoutResult(db.prepare(`INSERT INTO locks (${COLUMNS}) VALUES (${COLUMN_NAMES.map(() => '?').join(', ')})`), ...COLUMN_NAMES.map((column) => lock[column]));
}

// By public id (a string, through locks_by_id), or by key (a number: how a bulk operation finds again,
// inside a later write transaction, a row it listed before).
export async function getLock(db: Connection, key: string | number): Promise<StoredLock | undefined> {
  return (await db.prepare(`SELECT ${COLUMNS} FROM locks WHERE ${typeof key === 'number' ? 'seq' : 'id'} = ?`).get(key)) as StoredLock | undefined;
}

// Every path-prefix of a literal base ('' included): the bases of locks that may contain ours.
export function basePrefixes(base: string): string[] {
  if (base === '') return [''];
  const segments = base.split('/');
  return ['', ...segments.map((_, i) => segments.slice(0, i + 1).join('/'))];
}

// Locks that may bind a request in (scope, type) with this literal base: those whose base is a prefix of
// ours or lies below it, unreleased or swept as expired recently enough to be in their lock-delay. Both
// kinds are narrowed by base the same way (locks_unreleased_by_base, locks_expired_by_base), so lapsed
// locks elsewhere in the tree cost a request nothing. Separate SELECTs joined by UNION ALL, because SQLite
// will not use the base index for an OR of the two; callers deduplicate by id.
export async function findCandidates(db: Connection, q: { scope: string; type: LockType; base: string; delayCutoff: number }): Promise<StoredLock[]> {
  const isFile = q.type === 'file';
  if (isFile && q.base === '') {
    // A pattern with no literal base may overlap anything in the scope.
    return (await db.prepare(candidatesSql('everything', 0)).all(q.scope, q.type, q.scope, q.type, q.delayCutoff)) as StoredLock[];
  }
  if (!isFile) return (await db.prepare(candidatesSql('equal', 1)).all(q.scope, q.type, q.base, q.scope, q.type, q.base, q.delayCutoff)) as StoredLock[]; // names and claims compare by equality
  const prefixes = basePrefixes(q.base);
  const below = [`${q.base}/`, `${q.base}0`]; // strictly below our base: '0' sorts right after '/'
  return (await db
    .prepare(candidatesSql('related', prefixes.length))
    .all(q.scope, q.type, ...prefixes, q.scope, q.type, ...below, q.scope, q.type, ...prefixes, q.delayCutoff, q.scope, q.type, ...below, q.delayCutoff)) as StoredLock[];
}

// The SQL of findCandidates depends only on the kind of base and the number of its prefixes; building it
// once per shape keeps the hot path free of string work.
const candidateSql = new Map<string, string>();

function candidatesSql(kind: 'everything' | 'equal' | 'related', prefixCount: number): string {
  const key = `${kind}:${prefixCount}`;
  let sql = candidateSql.get(key);
  if (sql) return sql;
  const unreleased = `SELECT ${COLUMNS} FROM locks WHERE scope = ? AND type = ? AND released_at IS NULL`;
  const delayed = `SELECT ${COLUMNS} FROM locks WHERE scope = ? AND type = ? AND release_reason = 'expired'`;
  const inBases = `base IN (${Array.from({ length: prefixCount }, () => '?').join(', ')})`;
  let parts: string[];
  if (kind === 'everything') parts = [unreleased, `${delayed} AND expires_at > ?`];
  else if (kind === 'equal') parts = [`${unreleased} AND base = ?`, `${delayed} AND base = ? AND expires_at > ?`];
  else {
    parts = [`${unreleased} AND ${inBases}`, `${unreleased} AND base >= ? AND base < ?`, `${delayed} AND ${inBases} AND expires_at > ?`, `${delayed} AND base >= ? AND base < ? AND expires_at > ?`];
  }
  sql = parts.join(' UNION ALL ');
  candidateSql.set(key, sql);
  return sql;
}

export async function setExpiry(db: Connection, seq: number, expiresAt: number, ttlMs: number, mode: LockMode): Promise<void> {
  await runWithoutResult(db.prepare('UPDATE locks SET expires_at = ?, ttl_ms = ?, mode = ? WHERE seq = ?'), expiresAt, ttlMs, mode, seq);
}

// Marks a lock released once; returns false when it already was (so no second event is written).
export async function markReleased(db: Connection, seq: number, at: number, reason: string): Promise<boolean> {
  return (await db.prepare('UPDATE locks SET released_at = ?, release_reason = ? WHERE seq = ? AND released_at IS NULL').run(at, reason, seq)).changes === 1;
}

export async function reassign(db: Connection, seq: number, owner: string, token: number): Promise<void> {
  await db.prepare('UPDATE locks SET owner = ?, token = ? WHERE seq = ?').run(owner, token, seq);
}

export interface LockFilter {
  scope?: string;
  owner?: string;
  type?: LockType;
  /** Only locks not released yet (expired or not): lets the query use the unreleased-lock index. */
  unreleased?: boolean;
  /** Only locks active at this instant. */
  activeAt?: number;
  /** Only locks expiring before this instant. */
  expiresBefore?: number;
  pattern?: string;
  limit?: number;
}

// Lists locks by the given filter, oldest grant first.
export async function listLocks(db: Connection, filter: LockFilter): Promise<StoredLock[]> {
  const { sql, params } = locksQuery(filter);
  return (await db.prepare(sql).all(...params)) as StoredLock[];
}

// Inside a read: announces the listLocks(filter) the read will make (Connection.prefetch).
export function prefetchLocks(db: Connection, filter: LockFilter): void {
  if (!db.prefetch) return;
  const { sql, params } = locksQuery(filter);
  db.prefetch(sql, params);
}

function locksQuery(filter: LockFilter): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.scope !== undefined) (where.push('scope = ?'), params.push(filter.scope));
  if (filter.owner !== undefined) (where.push('owner = ?'), params.push(filter.owner));
  if (filter.type !== undefined) (where.push('type = ?'), params.push(filter.type));
  if (filter.pattern !== undefined) (where.push('pattern = ?'), params.push(filter.pattern));
  if (filter.unreleased && filter.activeAt === undefined) where.push('released_at IS NULL');
  if (filter.activeAt !== undefined) (where.push('released_at IS NULL AND expires_at > ?'), params.push(filter.activeAt));
  if (filter.expiresBefore !== undefined) (where.push('expires_at <= ?'), params.push(filter.expiresBefore));
  const sql = `SELECT ${COLUMNS} FROM locks${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY token${filter.limit ? ' LIMIT ?' : ''}`;
  if (filter.limit) params.push(filter.limit);
  return { sql, params };
}

// seq, base and ttl_ms are storage detail; callers outside the store see plain locks.
export const withoutBase: (lock: StoredLock) => Lock = plainLock;

// Deletes at most `rows` released locks older than the cutoff (the cleanup loop for every creation loop),
// oldest release first through locks_released_at; a bulk purge repeats it, one transaction each.
export async function purgeReleased(db: Connection, releasedBefore: number, rows: number): Promise<number> {
  return (await db.prepare('DELETE FROM locks WHERE seq IN (SELECT seq FROM locks WHERE released_at IS NOT NULL AND released_at < ? ORDER BY released_at LIMIT ?)').run(releasedBefore, rows)).changes;
}

export async function countReleasedBefore(db: Connection, releasedBefore: number): Promise<number> {
  return ((await db.prepare('SELECT count(*) AS n FROM locks WHERE released_at IS NOT NULL AND released_at < ?').get(releasedBefore)) as { n: number }).n;
}

// Pushes expiry out for every active lock of an owner (all scopes), each by the TTL it was taken with.
export async function extendOwnerLocks(db: Connection, owner: string, now: number): Promise<number> {
  return (await db.prepare('UPDATE locks SET expires_at = ? + ttl_ms WHERE owner = ? AND released_at IS NULL AND expires_at > ? AND expires_at < ? + ttl_ms').run(now, owner, now, now)).changes;
}

// The stored key (what locks are stored under) of the scope whose directory has this identity
// (schema/0005_scope_names.sql; coord/workspace.ts, scopeKey).
export async function scopeNameOf(db: Connection, identity: string): Promise<string | undefined> {
  const row = (await db.prepare('SELECT scope FROM scope_names WHERE identity = ?').get(identity)) as { scope: string } | undefined;
  return row?.scope;
}

// Records `scope` as the key of the directory with this identity, replacing a stale row for either (a
// directory that is gone and whose inode was reused, a device renumbered at boot).
export async function recordScopeName(db: Connection, identity: string, scope: string): Promise<void> {
  await db.prepare('DELETE FROM scope_names WHERE identity = ? OR scope = ?').run(identity, scope);
  await db.prepare('INSERT INTO scope_names (identity, scope) VALUES (?, ?)').run(identity, scope);
}
