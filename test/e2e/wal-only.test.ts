import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { coord, makeTempRepo, REPO_ROOT, type TempRepo } from '../support/cli';
import { sqliteOnly } from '../support/engine';

const as = (owner: string) => ({ env: { IC_OWNER: owner } });

// A new database's first transactions stay in its -wal until a checkpoint: the last connection's close, or
// 1,000 pages. After a writer was killed before closing (an agent killing its hook at a timeout, kill -9),
// the file's own header still reads "no schema" while the WAL holds the locks. A read that took that for an
// empty database answered "free" for a held file.
describe('a database whose pages are still all in its WAL', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-wal-');
  });
  afterEach(() => repo.cleanup());

  sqliteOnly.it('is read as it is: a held file is not free and the lock is listed', async () => {
    // A writer that creates the database, is granted src/a.ts, and is killed before it closes anything.
    const writer = `const api = require(${JSON.stringify(join(REPO_ROOT, 'dist', 'api.cjs'))});
(async () => {
  const ctx = await api.createContext({ cwd: ${JSON.stringify(repo.dir)}, env: {}, write: true });
  const outcome = await api.reserveOnce(ctx, { type: 'file', patterns: ['src/a.ts'], owner: 'alice', mode: 'exclusive', ttlMs: 600000, reason: null });
  if (outcome.granted) process.kill(process.pid, 'SIGKILL');
})();`;
    expect((await execa(process.execPath, ['-e', writer], { cwd: repo.dir, reject: false })).signal).toBe('SIGKILL');
    // The premise: the file's header carries no schema and no application id; the WAL holds the pages.
    const header = readFileSync(repo.db).subarray(0, 100);
    expect([header.readUInt32BE(40), header.readUInt32BE(68)]).toEqual([0, 0]);
    expect(statSync(`${repo.db}-wal`).size).toBeGreaterThan(32);

    const check = await coord(repo, ['check', 'src/a.ts'], as('bob'));
    expect(check.exitCode).toBe(1);
    expect(check.json).toMatchObject({ ok: true, free: false, conflicts: [{ held: { owner: 'alice', pattern: 'src/a.ts' } }] });
    expect((await coord(repo, ['list', '--active'])).json.locks).toMatchObject([{ owner: 'alice', pattern: 'src/a.ts' }]);
    expect((await coord(repo, ['reserve', 'src/a.ts'], as('bob'))).exitCode).not.toBe(0); // a writer always saw it
  });
});
