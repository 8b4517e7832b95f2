// Issue 21, finding 6 and Build 4: a database someone named (--db, IC_DB) that does not exist is 69 for
// reads too, never "nothing is held"; only the default location may be absent and read as empty. And
// Build 10: --db and --scope are accepted before the subcommand. Real bin, real git commits.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, COORD_BIN, coord, ic, IC_BIN, makeTempRepo, runBin, type TempRepo } from '../support/cli';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-named-db-');
});
afterEach(() => repo.cleanup());

const typo = () => join(repo.dir, '.git', 'ic', 'ic.bd'); // the real database is .git/ic/ic.db

describe('a read of a named database that does not exist', () => {
  it.each([
    ['IC_DB', (path: string) => ({ args: [] as string[], env: { IC_DB: path } })],
    ['--db', (path: string) => ({ args: ['--db', path], env: {} })],
  ])('is 69 for check, list and who (named by %s), and creates nothing', async (_how, how) => {
    expect((await coord(repo, ['reserve', 'held.ts'], { env: { IC_OWNER: 'alice' } })).exitCode).toBe(0);
    const { args, env } = how(typo());
    for (const command of [['check', 'held.ts'], ['list'], ['who']]) {
      const result = await coord(repo, [...command, ...args], { env: { IC_OWNER: 'bob', ...env } });
      expect(result.exitCode, command[0]).toBe(69);
      expect(result.json.error).toMatchObject({ code: 'DB_UNAVAILABLE', path: typo() });
      expect(result.json.free).toBeUndefined();
      expect(result.stderr).not.toMatch(/the first write creates it/);
    }
    expect(existsSync(typo())).toBe(false);
  });

  it('the default location, absent, still reads as empty and creates nothing', async () => {
    const check = await coord(repo, ['check', 'a.ts']);
    expect(check.exitCode).toBe(0);
    expect(check.json.free).toBe(true);
    expect(existsSync(repo.db)).toBe(false);
  });
});

describe('the pre-commit guard with a typo in IC_DB', () => {
  function commit(env: Record<string, string>): { ok: boolean; stderr: string } {
    const result = spawnSync('git', ['commit', '-q', '-m', 'change'], { cwd: repo.dir, env: cleanEnv(env) as NodeJS.ProcessEnv, encoding: 'utf8' });
    return { ok: result.status === 0, stderr: result.stderr };
  }
  const head = () => spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo.dir, encoding: 'utf8' }).stdout.trim();

  it('never passes a commit of a held file silently: it says the database is missing, and refuses it under IC_HOOK_FAIL=closed', async () => {
    expect((await ic(repo, ['coord', 'install', '--git'])).exitCode).toBe(0);
    writeFileSync(join(repo.dir, 'held.ts'), 'one\n');
    spawnSync('git', ['add', 'held.ts'], { cwd: repo.dir });
    expect(commit({ IC_OWNER: 'bob' }).ok).toBe(true);
    const first = head();
    expect((await coord(repo, ['reserve', 'held.ts'], { env: { IC_OWNER: 'alice' } })).exitCode).toBe(0);
    writeFileSync(join(repo.dir, 'held.ts'), 'two\n');
    spawnSync('git', ['add', 'held.ts'], { cwd: repo.dir });

    // With the right database, refused.
    expect(commit({ IC_OWNER: 'bob' }).ok).toBe(false);
    // With a typo'd IC_DB: refused when failing closed, and the reason names the missing database.
    const closed = commit({ IC_OWNER: 'bob', IC_DB: typo(), IC_HOOK_FAIL: 'closed' });
    expect(closed.ok).toBe(false);
    expect(closed.stderr).toContain(`DB_UNAVAILABLE: no database at ${typo()}`);
    expect(head()).toBe(first);
    // Failing open (the default), the commit goes through, but never silently.
    const open = commit({ IC_OWNER: 'bob', IC_DB: typo() });
    expect(open.ok).toBe(true);
    expect(open.stderr).toContain(`could not check this commit (DB_UNAVAILABLE: no database at ${typo()}`);
    expect(existsSync(typo())).toBe(false);
  });
});

describe('--db and --scope before the subcommand', () => {
  it('coord --db X list and ic coord --db X list read X; a value after the subcommand wins', async () => {
    const x = join(repo.dir, 'x.db');
    const y = join(repo.dir, 'y.db');
    expect((await coord(repo, ['--db', x, 'reserve', 'in-x.ts'], { env: { IC_OWNER: 'alice' } })).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'in-y.ts', '--db', y], { env: { IC_OWNER: 'alice' } })).exitCode).toBe(0);
    const patterns = (result: { json: any }) => result.json.locks.map((l: any) => l.pattern);
    expect(patterns(await coord(repo, ['--db', x, 'list']))).toEqual(['in-x.ts']);
    expect(patterns(await coord(repo, [`--db=${x}`, 'list']))).toEqual(['in-x.ts']);
    expect(patterns(await ic(repo, ['coord', '--db', x, 'list']))).toEqual(['in-x.ts']);
    expect(patterns(await ic(repo, ['coordination', '--db', x, 'list', '--db', y]))).toEqual(['in-y.ts']);
    expect(existsSync(repo.db)).toBe(false);
  });

  it('coord --scope DIR reserve stores the lock in that scope', async () => {
    mkdirSync(join(repo.dir, 'pkg'));
    const result = await runBin(COORD_BIN, ['--scope', 'pkg', 'reserve', 'a.ts'], { cwd: repo.dir, env: { IC_OWNER: 'alice' } });
    expect(result.exitCode).toBe(0);
    expect(result.json.locks[0]).toMatchObject({ scope: join(repo.dir, 'pkg'), pattern: 'a.ts' });
    expect((await runBin(IC_BIN, ['coord', '--scope', 'no-such-dir', 'list'], { cwd: repo.dir })).exitCode).toBe(65);
  });
});
