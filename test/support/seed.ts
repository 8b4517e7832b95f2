// Seeds many locks straight into a database that ic has already created, for tests (and the bench) that
// need tens of thousands of them: a grant per lock through the CLI would take minutes. Each lock gets the
// `reserved` event a grant writes, with the same id (its key and fencing token), so the database is one ic
// could have written and later grants take ids above them. For seeding only: what is tested runs through ic.
import Database from 'better-sqlite3';
import { literalBase } from '../../src/core/glob';

export interface SeedOptions {
  scope: string;
  owner: string;
  count: number;
  pattern: (i: number) => string;
  createdAt: number;
  expiresAt: number;
  /** Already swept: released as `expired` at expiresAt (what binds others during the lock-delay). */
  sweptExpired?: boolean;
}

export function seedLocks(dbPath: string, options: SeedOptions): void {
  const db = new Database(dbPath);
  try {
    db.pragma('busy_timeout = 10000');
    db.transaction(() => {
      let next = (db.prepare('SELECT coalesce(max(id), 0) + 1 AS id FROM events').get() as { id: number }).id;
      const lock = db.prepare(
        'INSERT INTO locks (seq, id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms, released_at, release_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const event = db.prepare('INSERT INTO events (id, type, lock_id, scope, owner, pattern, reason, created_at, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
      const ttl = options.expiresAt - options.createdAt;
      for (let i = 0; i < options.count; i++, next++) {
        const pattern = options.pattern(i);
        const id = `s${next.toString(36).padStart(7, '0')}`;
        const released = options.sweptExpired ? options.expiresAt : null;
        lock.run(
          next,
          id,
          next,
          'file',
          options.scope,
          pattern,
          literalBase(pattern),
          options.owner,
          'exclusive',
          null,
          options.createdAt,
          options.expiresAt,
          ttl,
          released,
          options.sweptExpired ? 'expired' : null,
        );
        event.run(next, 'reserved', id, options.scope, options.owner, pattern, null, options.createdAt, JSON.stringify({ expires_at: options.expiresAt, mode: 'exclusive' }));
      }
    }).immediate();
  } finally {
    db.close();
  }
}
