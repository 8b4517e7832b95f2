import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { coord, makeTempRepo, REPO_ROOT, type TempRepo } from '../support/cli';
import { sqliteOnly } from '../support/engine';
import { IC_APPLICATION_ID } from '../../src/store/application-id';

const as = (owner: string) => ({ env: { IC_OWNER: owner } });

// A new database's first transactions can stay in its -wal: ic checkpoints a new schema into the file, but not
// past a reader's older snapshot, nor when killed first (an agent killing its hook at a timeout, kill -9). The
// file's own header then still reads "no schema" while the WAL holds the locks. A read that took that for an
// empty database answered "free" for a held file.
describe('a database whose pages are still all in its WAL', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-wal-');
  });
  afterEach(() => repo.cleanup());

  sqliteOnly.it('is read as it is: a held file is not free and the lock is listed', async () => {
    // A writer that creates the database while a reader holds a snapshot of it from before its schema (so no
    // checkpoint can copy a page), is granted src/a.ts, and is killed before it closes anything.
    const writer = `const api = require(${JSON.stringify(join(REPO_ROOT, 'dist', 'api.cjs'))});
const Database = require(${JSON.stringify(join(REPO_ROOT, 'node_modules', 'better-sqlite3'))});
require('fs').mkdirSync(${JSON.stringify(dirname(repo.db))}, { recursive: true });
const reader = new Database(${JSON.stringify(repo.db)});
reader.pragma('journal_mode = WAL');
reader.prepare('BEGIN').run();
reader.prepare('SELECT count(*) FROM sqlite_master').get();
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

// A hook exits without closing the database (cli/hook-main.ts): its commits stay in the WAL, where every
// other call reads them, until a checkpoint copies them into the file.
describe('a hook’s commits, left in the WAL', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-wal-hook-');
  });
  afterEach(() => repo.cleanup());

  const edit = (session: string) =>
    coord(repo, ['hook', 'claude-pre-edit'], {
      input: JSON.stringify({ session_id: session, cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(repo.dir, 'src', 'a.ts') } }),
    });

  sqliteOnly.it('hold for every other call, the file carries ic’s mark from the first hook on, and a command’s close folds them in', async () => {
    expect(await edit('s-1')).toMatchObject({ exitCode: 0, stdout: '' }); // creates the database
    expect(readFileSync(repo.db).readUInt32BE(68)).toBe(IC_APPLICATION_ID); // the new schema was checkpointed into the file
    expect(statSync(`${repo.db}-wal`).size).toBeGreaterThan(32); // the grant itself is still in the WAL

    const other = await edit('s-2');
    expect(other.exitCode).toBe(0);
    expect(other.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect((await coord(repo, ['list', '--active'])).json.locks).toMatchObject([{ owner: 'claude-s-1', pattern: 'src/a.ts' }]);
    expect(existsSync(`${repo.db}-wal`)).toBe(false); // the command's close checkpointed the WAL and removed it
    expect((await coord(repo, ['list', '--active'])).json.locks).toMatchObject([{ owner: 'claude-s-1', pattern: 'src/a.ts' }]);
  });
});
