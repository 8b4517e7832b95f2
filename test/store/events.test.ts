// The event log's id arithmetic on a real SQLite file: where a time window starts, and which id the next
// fencing token gets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDb } from '../../src/store/open';
import { EVERYTHING, type Connection } from '../../src/store/connection';
import { firstEventIdSince, insertEvent, nextEventId, purgeEvents } from '../../src/store/events';

let dir: string;
let db: Connection;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ic-events-'));
  db = openDb({ path: join(dir, 'ic.db'), source: 'git' }, { write: true, busyTimeoutMs: 1000, now: Date.now(), env: {} }).db;
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const event = (created_at: number) => ({ type: 'reserved' as const, lock_id: null, scope: '/s', owner: 'o', pattern: 'p', reason: null, created_at });

// Rewrites the log as the given (id gap, time) steps, inside a transaction that is rolled back afterwards.
async function withLog<T>(steps: readonly { gap: number; at: number }[], look: () => Promise<T>): Promise<T> {
  const RESET = Symbol('reset');
  let result: T | undefined;
  try {
    await db.write(EVERYTHING, async () => {
      await db.prepare('DELETE FROM events').run();
      let id = 0;
      for (const step of steps) await insertEvent(db, event(step.at), (id += step.gap));
      result = await look();
      throw RESET;
    });
  } catch (error) {
    if (error !== RESET) throw error;
  }
  return result as T;
}

describe('firstEventIdSince', () => {
  it('is where the window starts: every event at or after the time is at or after it, none before it is', async () => {
    const steps = fc.array(fc.record({ gap: fc.integer({ min: 1, max: 5 }), delta: fc.integer({ min: 0, max: 3 }) }), { maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(steps, fc.integer({ min: -2, max: 200 }), async (raw, since) => {
        let at = 0;
        const log = raw.map((step) => ({ gap: step.gap, at: (at += step.delta) })); // times never go back
        await withLog(log, async () => {
          const start = await firstEventIdSince(db, since);
          const rows = (await db.prepare('SELECT id, created_at FROM events ORDER BY id').all()) as { id: number; created_at: number }[];
          for (const row of rows) expect(row.created_at >= since, `event ${row.id} at ${row.created_at}, window from ${since} starts at ${start}`).toBe(row.id >= start);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('answers past the end for an empty log or a window after every event', async () => {
    expect(await withLog([], () => firstEventIdSince(db, 0))).toBe(1);
    expect(
      await withLog(
        [
          { gap: 1, at: 5 },
          { gap: 4, at: 6 },
        ],
        () => firstEventIdSince(db, 7),
      ),
    ).toBe(6);
  });
});

describe('nextEventId', () => {
  it('is one above the largest event id, and a purge never lowers it (it keeps the newest event)', async () => {
    await withLog(
      [
        { gap: 1, at: 1 },
        { gap: 1, at: 2 },
        { gap: 7, at: 3 },
      ],
      async () => {
        expect((await nextEventId(db)).id).toBe(10);
        expect(await insertEvent(db, event(4))).toBe(10); // SQLite's own next rowid is the same number
        expect(await purgeEvents(db, 100, 1_000)).toBe(3); // everything but the newest
        expect(await db.prepare('SELECT id FROM events').all()).toEqual([{ id: 10 }]);
        expect((await nextEventId(db)).id).toBe(11);
        expect(await purgeEvents(db, 100, 1_000)).toBe(0); // the newest is never purged, however old
        expect((await nextEventId(db)).id).toBe(11);
      },
    );
    expect(await withLog([], async () => (await nextEventId(db)).id)).toBe(1);
  });
});
