// A client process for the PostgreSQL tests, bundled by global-setup.ts and run as `node worker.cjs MODE JSON`:
// real processes with their own connections, which a test can run by the dozen or kill -9.
//
//   grant   {url, scope, owner, patterns, iterations, seed, lock, reconnect}  take or give back random patterns;
//           prints its counts and the ids of the events its acknowledged commits wrote
//   hold    {url, scope, owner, during}  inserts a lock row in a scope transaction, prints "inserted", then waits
//           idle in the transaction (during = 'idle') or inside a long statement (during = 'statement')
//   migrate {url}  creates the schema; prints the versions it applied
import { IcError } from '../../src/core/errors';
import { PostgresConnection } from '../../src/store/postgres/connection';
import { migratePostgres } from '../../src/store/postgres/migrate';
import { scopeTransaction } from './scope-transaction';

interface GrantArgs {
  url: string;
  scope: string;
  owner: string;
  patterns: string[];
  iterations: number;
  seed: number;
  // false: the control run, without the scope lock (the checker must then find double grants)
  lock: boolean;
  // true: a connection the server ended (a restart) is replaced by a new one, as the next ic call would
  reconnect?: boolean;
  // An advisory lock the test holds: every writer waits on it after connecting, so all start together
  barrier?: number;
}

// A small deterministic generator (mulberry32), so a failing run can be replayed from its seed.
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One grant-or-release decision: read who holds the pattern, wait a little (so that, without the scope
// lock, another writer would decide on the same stale read), then write.
type Outcome = { outcome: 'granted' | 'released' | 'refused'; eventId?: number };

async function step(db: PostgresConnection, args: GrantArgs, pattern: string): Promise<Outcome> {
  const now = await db.serverNowMs();
  const held = await db.get<{ seq: number; owner: string }>("SELECT seq, owner FROM locks WHERE scope = ? AND type = 'file' AND base = ? AND released_at IS NULL", [args.scope, pattern]);
  await db.exec('SELECT pg_sleep(0.002)');
  if (!held) {
    const id = (await db.get<{ id: number }>("SELECT nextval('events_id_seq') AS id"))!.id;
    await db.run('INSERT INTO events (id, type, lock_id, scope, owner, pattern, reason, created_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)', [
      id,
      'reserved',
      `l${id}`,
      args.scope,
      args.owner,
      pattern,
      now,
    ]);
    await db.run(
      "INSERT INTO locks (seq, id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms) VALUES (?, ?, ?, 'file', ?, ?, ?, ?, 'exclusive', NULL, ?, ?, ?)",
      [id, `l${id}`, id, args.scope, pattern, pattern, args.owner, now, now + 60_000, 60_000],
    );
    return { outcome: 'granted', eventId: id };
  }
  if (held.owner !== args.owner) return { outcome: 'refused' };
  await db.run("UPDATE locks SET released_at = ?, release_reason = 'released' WHERE seq = ?", [now, held.seq]);
  const released = (await db.get<{ id: number }>('INSERT INTO events (type, lock_id, scope, owner, pattern, reason, created_at) VALUES (?, ?, ?, ?, ?, NULL, ?) RETURNING id', [
    'released',
    `l${held.seq}`,
    args.scope,
    args.owner,
    pattern,
    now,
  ]))!;
  return { outcome: 'released', eventId: released.id };
}

// Opens a connection, trying again while the server cannot be reached (it may be restarting) until the deadline.
async function openWhileRestarting(url: string, deadline: number): Promise<PostgresConnection> {
  for (;;) {
    try {
      const db = PostgresConnection.open(url);
      await db.ready();
      return db;
    } catch (error) {
      if (!(error instanceof IcError) || error.code !== 'DB_UNAVAILABLE' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

// Waits (beyond the session's lock_timeout) until the test releases its advisory lock `key`.
async function waitAtBarrier(db: PostgresConnection, key: number): Promise<void> {
  const { lock_timeout: before } = (await db.get<{ lock_timeout: string }>('SHOW lock_timeout'))!;
  await db.exec('SET lock_timeout = 0');
  await db.get('SELECT pg_advisory_lock_shared(?::bigint)', [key]);
  await db.get('SELECT pg_advisory_unlock_shared(?::bigint)', [key]);
  await db.get('SELECT set_config(?, ?, false)', ['lock_timeout', before]); // the session's own value (ic sets it after the login: RESET would lose it)
}

async function grant(args: GrantArgs): Promise<void> {
  const next = random(args.seed);
  const deadline = Date.now() + 60_000;
  // A writer that starts late may connect while the server restarts (no socket yet): it waits, as for a reconnection.
  let db = args.reconnect ? await openWhileRestarting(args.url, deadline) : PostgresConnection.open(args.url);
  if (args.barrier !== undefined) await waitAtBarrier(db, args.barrier);
  const counts = { granted: 0, released: 0, refused: 0, busy: 0, reconnected: 0 };
  // The ids of the events written by transactions whose COMMIT the server acknowledged: none may be lost.
  const acknowledged: number[] = [];
  for (let i = 0; i < args.iterations; i++) {
    const pattern = args.patterns[Math.floor(next() * args.patterns.length)]!;
    try {
      let result: Outcome;
      if (args.lock) {
        result = await scopeTransaction(db, args.scope, () => step(db, args, pattern), { lockTimeoutMs: 30_000 });
      } else {
        await db.exec('BEGIN ISOLATION LEVEL READ COMMITTED');
        result = await step(db, args, pattern);
        await db.exec('COMMIT');
      }
      counts[result.outcome] += 1;
      if (result.eventId !== undefined) acknowledged.push(result.eventId);
    } catch (error) {
      if (!(error instanceof IcError) || error.code !== 'BUSY') throw error;
      counts.busy += 1;
      // A restart ends the session (57P01), and the connection is gone for good: a client opens a new one,
      // as the next ic process would.
      if (args.reconnect && /lost|shutting down or restarting/.test(error.message)) {
        db.close();
        db = await openWhileRestarting(args.url, deadline);
        counts.reconnected += 1;
      }
    }
  }
  db.close();
  process.stdout.write(`${JSON.stringify({ ...counts, acknowledged })}\n`);
}

async function hold(args: { url: string; scope: string; owner: string; during: 'idle' | 'statement'; holdMs?: number }): Promise<void> {
  const db = PostgresConnection.open(args.url);
  await scopeTransaction(db, args.scope, async () => {
    const now = await db.serverNowMs();
    const id = (await db.get<{ id: number }>("SELECT nextval('events_id_seq') AS id"))!.id;
    await db.run('INSERT INTO events (id, type, lock_id, scope, owner, pattern, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [id, 'reserved', `l${id}`, args.scope, args.owner, 'half.ts', now]);
    await db.run(
      "INSERT INTO locks (seq, id, token, type, scope, pattern, base, owner, mode, created_at, expires_at, ttl_ms) VALUES (?, ?, ?, 'file', ?, 'half.ts', 'half.ts', ?, 'exclusive', ?, ?, ?)",
      [id, `l${id}`, id, args.scope, args.owner, now, now + 60_000, 60_000],
    );
    process.stdout.write('inserted\n');
    // Killed long before this returns (SIGKILL), or stopped and continued (SIGSTOP) to meet its COMMIT refused.
    if (args.during === 'statement') await db.exec('SELECT pg_sleep(25)');
    else await new Promise((resolve) => setTimeout(resolve, args.holdMs ?? 25_000));
  });
  db.close();
}

async function migrate(args: { url: string }): Promise<void> {
  const db = PostgresConnection.open(args.url);
  const applied = await migratePostgres(db, await db.serverNowMs());
  db.close();
  process.stdout.write(`${JSON.stringify(applied)}\n`);
}

const [mode, json] = process.argv.slice(2);
async function main(): Promise<void> {
  const args = JSON.parse(json ?? '{}');
  if (mode === 'grant') await grant(args);
  else if (mode === 'hold') await hold(args);
  else if (mode === 'migrate') await migrate(args);
  else throw new Error(`unknown mode ${mode}`);
}
void main().catch((error: unknown) => {
  const shown = error instanceof IcError ? `${error.code}: ${error.message}` : String(error);
  process.stderr.write(`${shown}\n`);
  process.exit(error instanceof IcError && error.code === 'BUSY' ? 75 : 1);
});
