// The server restarted in the middle of a run of writer processes (issue #24, "stress with faults"): the
// clients see BUSY for the transactions the restart ended, open new connections as the next ic call would,
// and carry on; afterwards no pattern was ever held twice and every commit the server acknowledged is there.
import { afterEach, describe, expect, it } from 'vitest';
import { migratePostgres } from '../../src/store/postgres/migrate';
// @ts-expect-error -- a plain .mjs script without type declarations
import { restartPostgres } from '../../scripts/postgres-server.mjs';
import { freshSchemaUrl, ownServer, serverDir, serverUrl, withConnection } from './support';
import { worker } from './process';
import { doubleGrants } from './grants';

const WRITERS = 8;
const PATTERNS = ['src/a.ts', 'src/b.ts', 'src/c.ts'];
const SEED = Number(process.env.STRESS_SEED ?? 211804388);

ownServer(); // it restarts it

const created: string[] = [];
afterEach(async () => {
  await withConnection(serverUrl(), async (db) => {
    for (const schema of created.splice(0)) await db.exec(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
});

interface WriterReport {
  granted: number;
  released: number;
  refused: number;
  busy: number;
  reconnected: number;
  acknowledged: number[];
}

describe('a server restart in the middle of a run', () => {
  it('costs some BUSY answers, never a double grant nor an acknowledged commit', async () => {
    const { url, schema } = freshSchemaUrl();
    created.push(schema);
    await withConnection(url, (db) => migratePostgres(db, 0));
    const writers = Array.from({ length: WRITERS }, (_, i) =>
      worker('grant', { url, scope: '/repo', owner: `agent-${i}`, patterns: PATTERNS, iterations: 60, seed: SEED + i, lock: true, reconnect: true }),
    );
    // Restart once the writers are well under way (some events written), not before they start.
    const before = await eventsOnceAtLeast(url, 40);
    restartPostgres(serverDir());
    const results = await Promise.all(writers);
    for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
    const reports = results.map((result) => JSON.parse(result.stdout) as WriterReport);
    const total = (key: 'busy' | 'reconnected' | 'granted') => reports.reduce((sum, report) => sum + report[key], 0);
    expect(total('reconnected')).toBeGreaterThan(0); // the restart did end sessions mid-run
    expect(total('busy')).toBeGreaterThanOrEqual(total('reconnected'));
    await withConnection(url, async (db) => {
      const stored = new Set((await db.all<{ id: number }>('SELECT id FROM events')).map((row) => row.id));
      expect(stored.size).toBeGreaterThan(before); // writers carried on after the restart
      const lost = reports.flatMap((report) => report.acknowledged).filter((id) => !stored.has(id));
      expect(lost).toEqual([]);
      expect(await doubleGrants(db, '/repo')).toMatchObject({ replayed: 0, live: 0 });
    });
  });
});

// Polls (over fresh connections) until the scope has at least `count` events; returns how many it saw.
async function eventsOnceAtLeast(url: string, count: number): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const seen = await withConnection(url, async (db) => (await db.get<{ n: number }>('SELECT count(*) AS n FROM events'))!.n);
    if (seen >= count) return seen;
    if (Date.now() > deadline) throw new Error(`only ${seen} events after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
