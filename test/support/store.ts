import { afterEach, beforeEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createContext, type CoordContext } from '../../src/coord/context';
import { reserveOnce, type ReserveInput } from '../../src/coord/reserve';
import type { Lock } from '../../src/core/lock';
import { freshPostgresDatabase, nameTestProject, onPostgres, POSTGRES_CLIENT_CLOCK } from './engine';

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

// A use-case context on a real SQLite file in a fresh temp directory, with a clock the test sets; on
// PostgreSQL (IC_TEST_ENGINE=postgres, see engine.ts) on a fresh database of the suite's server instead.
export interface TestStore {
  ctx: CoordContext;
  dir: string;
  /** What the context's clock reads: set it to move time. */
  now: number;
}

export async function openTestStore(env: NodeJS.ProcessEnv = {}, into = {} as TestStore & { close: () => void }): Promise<TestStore & { close: () => void }> {
  const store = into;
  store.dir = mkdtempSync(join(tmpdir(), 'ic-unit-'));
  store.now = T0;
  const database = testDatabase(store.dir);
  store.ctx = await createContext({ cwd: store.dir, env: { ...database.env, ...env }, write: true, clock: () => store.now });
  store.close = () => {
    store.ctx.db.close();
    rmSync(store.dir, { recursive: true, force: true });
    database.drop();
  };
  return store;
}

// The database of a test store in `dir`, as the environment a context is created with: a SQLite file there,
// or on PostgreSQL a fresh database of the suite's server, `dir` made a git repository naming its project and
// the injected clock standing in for the server's (engine.ts). `drop` removes the server's database.
export function testDatabase(dir: string): { env: Record<string, string>; drop: () => void } {
  if (!onPostgres) return { env: { IC_DB: join(dir, 'test.db') }, drop: () => {} };
  const database = freshPostgresDatabase();
  nameTestProject(dir, database);
  return { env: { IC_DB: database.url, ...POSTGRES_CLIENT_CLOCK }, drop: database.drop };
}

// One fresh store per test of the calling file: the object returned is refilled before each test.
export function useTestStore(env: NodeJS.ProcessEnv = {}): TestStore {
  const current = {} as TestStore & { close: () => void };
  beforeEach(async () => {
    await openTestStore(env, current);
  });
  afterEach(() => current.close());
  return current;
}

// Reserves file patterns and returns the granted locks, failing the test on a conflict.
export async function grant(ctx: CoordContext, owner: string, patterns: string[], extra: Partial<ReserveInput> = {}): Promise<Lock[]> {
  const outcome = await reserveOnce(ctx, { type: 'file', patterns, owner, mode: 'exclusive', ttlMs: 60_000, reason: null, ...extra });
  if (!outcome.granted) throw new Error(`expected ${owner} to be granted ${patterns.join(' ')}`);
  return outcome.locks;
}
