// The lock-set stress with faults (test/reliability/stress-run.ts, the same run `npm test` makes on SQLite) on
// PostgreSQL through the real bin: processes SIGKILLed and SIGSTOPped mid-transaction, and the server
// restarted mid-run. The independent checker (test/support/replay.ts) replays the events: 0 double grants,
// every printed answer stored, every killed or cut-off reserve all-or-nothing.
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { IC_BIN, REPO_ROOT } from '../support/cli';
import type { EventRow, LockRow } from '../support/replay';
import { DEFAULT_STRESS, runStress, STRESS_EVENTS_SQL, STRESS_LOCKS_SQL, summarize } from '../reliability/stress-run';
import { freshSchemaUrl, ownServer, serverDir, withConnection } from './support';

const OPS = Number(process.env.STRESS_OPS ?? 400);
const SEED = Number(process.env.STRESS_SEED ?? Math.floor(Math.random() * 2 ** 31));

// `pg_ctl restart -m fast` in a process of its own, so the run's faults and processes go on meanwhile.
function restartServer(): Promise<void> {
  const script = `import { restartPostgres } from ${JSON.stringify(`${REPO_ROOT}/scripts/postgres-server.mjs`)}; restartPostgres(${JSON.stringify(serverDir())});`;
  return new Promise((resolve, reject) => execFile(process.execPath, ['--input-type=module', '-e', script], (error) => (error ? reject(error) : resolve())));
}

ownServer(); // it restarts it mid-run

describe('lock-set stress with faults on PostgreSQL', () => {
  it(`${OPS} ops by 8 processes under SIGKILL/SIGSTOP and a server restart: no violation (seed ${SEED})`, async () => {
    const database = freshSchemaUrl(); // on the file's own server: it goes with it
    const read = () => withConnection(database.url, async (db) => ({ events: await db.all<EventRow>(STRESS_EVENTS_SQL), locks: await db.all<LockRow>(STRESS_LOCKS_SQL) }));
    const result = await runStress({
      ...DEFAULT_STRESS,
      bin: IC_BIN,
      ops: OPS,
      procs: 8,
      owners: 6,
      faultEveryMs: 250,
      seed: SEED,
      database: { url: database.url, read },
      outageAfterOps: Math.floor(OPS / 2),
      outage: restartServer,
    });
    console.log(`stress (PostgreSQL) seed ${SEED}\n${summarize(result)}`);
    expect(result.violations, `history kept in ${result.dir}`).toEqual([]);
    expect(result.counts.double_grants ?? 0).toBe(0); // among the violations; said on its own for the record
    // The claims were exercised, not vacuously true.
    expect(result.counts.grants).toBeGreaterThan(0);
    expect(result.counts.conflicts).toBeGreaterThan(0);
    expect(result.counts.kills).toBeGreaterThan(0);
    expect(result.counts.outage).toBeGreaterThan(0); // calls were alive while the server restarted
    expect(result.counts['ops.reserve']).toBeGreaterThan(OPS / 4);
  }, 180_000);
});
