import type { PostgresConnection } from '../../src/store/postgres/connection';

// A write as the tests and test/postgres/worker.ts make it straight on a PostgresConnection (ic's own writes go
// through PgConnection.write): one transaction at READ COMMITTED holding the scope's row lock, which
// lockScope creates first when missing. `lockTimeoutMs` bounds the wait for the scope (0 = do not wait); past
// it the call is BUSY. The body's throw rolls it back.
export async function scopeTransaction<T>(db: PostgresConnection, scope: string, body: () => T | Promise<T>, options: { lockTimeoutMs?: number } = {}): Promise<T> {
  const lockTimeout = options.lockTimeoutMs === undefined ? '' : `; SET LOCAL lock_timeout = ${Math.max(0, Math.floor(options.lockTimeoutMs)) || 1}`;
  await db.exec(`BEGIN ISOLATION LEVEL READ COMMITTED${lockTimeout}`);
  try {
    await db.lockScope(scope);
    const result = await body();
    await db.exec('COMMIT');
    return result;
  } catch (error) {
    await db.rollbackQuietly();
    throw error;
  }
}
