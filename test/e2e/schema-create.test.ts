// A new database is created once when several processes open it at the same moment: one migration,
// marked as ic's, 1 KiB pages (test/store/schema.test.ts covers the schema in-process).
import { LATEST_VERSION } from '../../src/store/migrations';
import { describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { ID_PATTERN } from '../../src/core/ids';
import { IC_APPLICATION_ID } from '../../src/store/application-id';
import { coord, makeTempRepo } from '../support/cli';

describe('a new database', () => {
  it('is created once when 8 processes open it at the same moment: one migration, marked as ic, 1 KiB pages', async () => {
    const repo = makeTempRepo('ic-schema-');
    try {
      const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => coord(repo, ['reserve', `f${i}.ts`], { env: { IC_OWNER: `agent-${i}` } })));
      expect(runs.map((r) => [r.exitCode, r.stderr])).toEqual(Array(8).fill([0, '']));
      const granted = runs.map((r) => r.json.locks[0]);
      expect(new Set(granted.map((l: any) => l.token)).size).toBe(8);
      expect(new Set(granted.map((l: any) => l.id)).size).toBe(8);
      for (const lock of granted) expect(lock.id).toMatch(ID_PATTERN);

      const db = new Database(repo.db, { readonly: true });
      try {
        expect(db.prepare('SELECT version, name FROM schema_migrations').all()).toEqual([
          { version: 1, name: '0001_init' },
          { version: 3, name: '0003_sessions' },
        ]);
        expect(db.pragma('user_version', { simple: true })).toBe(LATEST_VERSION);
        expect(db.pragma('application_id', { simple: true })).toBe(IC_APPLICATION_ID);
        expect(db.pragma('page_size', { simple: true })).toBe(1024);
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
        expect(db.prepare('SELECT COUNT(*) AS n FROM locks').get()).toEqual({ n: 8 });
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      } finally {
        db.close();
      }
    } finally {
      repo.cleanup();
    }
  });
});
