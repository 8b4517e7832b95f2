import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

const as = (owner: string, env: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...env } });
const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });

// Every file and directory below `dir` (git's own object store left out): what a command may not add to.
function tree(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory() && entry.name === 'objects') continue;
      out.push(relative(dir, path));
      if (entry.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out.sort();
}

const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const patterns = (result: { json: any }) => result.json.locks.map((lock: any) => `${lock.owner}:${lock.pattern}`).sort();

describe('the default database lives in the git common dir', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-location-');
    writeFileSync(join(repo.dir, 'README'), 'hello\n');
    git(repo.dir, 'add', 'README');
    git(repo.dir, 'commit', '-qm', 'first');
  });
  afterEach(() => repo.cleanup());

  async function reserveTwo() {
    mkdirSync(join(repo.dir, 'src'), { recursive: true });
    expect((await coord(repo, ['reserve', 'src/**'], as('alice'))).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'docs/a.md'], as('bob'))).exitCode).toBe(0);
    return (await coord(repo, ['list', '--active'])).json.locks.map((lock: any) => `${lock.id}:${lock.token}`).sort();
  }

  it('is at <common dir>/ic/ic.db, and nothing appears in the work tree', async () => {
    await reserveTwo();
    expect(existsSync(join(repo.dir, '.git', 'ic', 'ic.db'))).toBe(true);
    expect(existsSync(join(repo.dir, '.ic'))).toBe(false);
    expect(git(repo.dir, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('survives git add -A, git stash -u + pop and git clean -fdx with every lock intact', async () => {
    const locks = await reserveTwo();
    writeFileSync(join(repo.dir, 'scratch.txt'), 'untracked\n');
    git(repo.dir, 'add', '-A');
    expect(git(repo.dir, 'diff', '--cached', '--name-only').trim()).toBe('scratch.txt');
    git(repo.dir, 'reset', '-q');
    git(repo.dir, 'stash', '-u');
    expect((await coord(repo, ['list', '--active'])).json.locks.map((lock: any) => `${lock.id}:${lock.token}`).sort()).toEqual(locks);
    git(repo.dir, 'stash', 'pop');
    git(repo.dir, 'clean', '-fdx');
    expect(existsSync(join(repo.dir, 'scratch.txt'))).toBe(false);
    expect((await coord(repo, ['list', '--active'])).json.locks.map((lock: any) => `${lock.id}:${lock.token}`).sort()).toEqual(locks);
    // The guarantee itself: after all that, another owner is still refused inside alice's src/**.
    const refused = await coord(repo, ['reserve', 'src/a.ts'], as('carol'));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error.conflicts[0].held.owner).toBe('alice');
  });

  it('is one database from any subdirectory; a stray nested .ic/ changes nothing', async () => {
    mkdirSync(join(repo.dir, 'pkg', '.ic'), { recursive: true });
    writeFileSync(join(repo.dir, 'pkg', '.ic', 'ic.db'), '');
    expect((await coord(repo, ['reserve', 'pkg/a.ts'], as('alice'))).exitCode).toBe(0);
    const fromPkg = await coord(repo, ['reserve', 'a.ts'], { ...as('bob'), cwd: join(repo.dir, 'pkg') });
    expect(fromPkg.exitCode).toBe(1);
    expect(fromPkg.json.error.conflicts[0].held).toMatchObject({ owner: 'alice', pattern: 'pkg/a.ts' });
    expect(readFileSync(join(repo.dir, 'pkg', '.ic', 'ic.db'), 'utf8')).toBe('');
  });

  it('reports a database left at the old in-tree location, and never uses it', async () => {
    mkdirSync(join(repo.dir, '.ic'));
    const old = new Database(join(repo.dir, '.ic', 'ic.db'));
    old.exec("CREATE TABLE locks (id TEXT); INSERT INTO locks VALUES ('x')");
    old.close();
    const before = digest(join(repo.dir, '.ic', 'ic.db'));
    const result = await coord(repo, ['reserve', 'a.ts'], as('alice'));
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(`${join(repo.dir, '.ic', 'ic.db')} is an ic 0.1 database and is no longer used`);
    expect(result.stderr).toContain('ic init --import');
    expect(digest(join(repo.dir, '.ic', 'ic.db'))).toBe(before);
    expect(existsSync(repo.db)).toBe(true);
  });
});

describe('worktrees share one database', () => {
  let repo: TempRepo;
  let one: string;
  let two: string;
  beforeEach(() => {
    repo = makeTempRepo('ic-worktrees-');
    writeFileSync(join(repo.dir, 'a.ts'), 'a\n');
    git(repo.dir, 'add', 'a.ts');
    git(repo.dir, 'commit', '-qm', 'first');
    one = `${repo.dir}-one`;
    two = `${repo.dir}-two`;
    git(repo.dir, 'worktree', 'add', '-q', one);
    git(repo.dir, 'worktree', 'add', '-q', two);
  });
  afterEach(() => {
    repo.cleanup();
    for (const dir of [one, two]) execFileSync('rm', ['-rf', dir]);
  });

  it('file locks are per worktree, claims per repository, and all see the same file', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], { ...as('alice'), cwd: one })).exitCode).toBe(0);
    // The same path in another worktree is another file on disk: no conflict.
    expect((await coord(repo, ['reserve', 'a.ts'], { ...as('bob'), cwd: two })).exitCode).toBe(0);
    expect((await coord(repo, ['claim', 'bd-42'], { ...as('alice'), cwd: one })).exitCode).toBe(0);
    const second = await coord(repo, ['claim', 'bd-42'], { ...as('bob'), cwd: two });
    expect(second.exitCode).toBe(1);
    expect(second.json.error.code).toBe('CONFLICT');
    const fromMain = await coord(repo, ['claim', 'bd-42'], as('carol'));
    expect(fromMain.exitCode).toBe(1);
    // Each worktree lists its own file locks and the repository's claims.
    expect(patterns(await coord(repo, ['list', '--active'], { cwd: one }))).toEqual(['alice:a.ts', 'alice:bd-42']);
    expect(patterns(await coord(repo, ['list', '--active'], { cwd: two }))).toEqual(['alice:bd-42', 'bob:a.ts']);
    expect(patterns(await coord(repo, ['list', '--active', '--all-scopes']))).toEqual(['alice:a.ts', 'alice:bd-42', 'bob:a.ts']);
    expect(existsSync(repo.db)).toBe(true);
    for (const dir of [one, two]) expect(existsSync(join(dir, '.ic'))).toBe(false);
    // alice gives the claim up from her worktree; bob gets it from his.
    expect((await coord(repo, ['unclaim', 'bd-42'], { ...as('alice'), cwd: one })).exitCode).toBe(0);
    expect((await coord(repo, ['claim', 'bd-42'], { ...as('bob'), cwd: two })).exitCode).toBe(0);
  });

  it("renew, transfer and release --claims reach the repository's claims from a linked worktree", async () => {
    expect((await coord(repo, ['claim', 'bd-7', '--ttl', '10m'], { ...as('alice'), cwd: one })).exitCode).toBe(0);
    const renewed = await coord(repo, ['renew', '--ttl', '2h'], { ...as('alice'), cwd: one });
    expect(renewed.json.locks.map((lock: any) => lock.pattern)).toEqual(['bd-7']);
    const moved = await coord(repo, ['transfer', '--from', 'alice', '--to', 'bob'], { ...as('alice'), cwd: one });
    expect(moved.exitCode).toBe(0);
    expect(moved.json.locks.map((lock: any) => `${lock.owner}:${lock.pattern}`)).toEqual(['bob:bd-7']);
    const released = await coord(repo, ['release', '--all', '--claims'], { ...as('bob'), cwd: two });
    expect(released.json.released.map((lock: any) => lock.pattern)).toEqual(['bd-7']);
    expect((await coord(repo, ['list', '--active', '--all-scopes'])).json.locks).toEqual([]);
  });
});

describe('explicit databases and scopes', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-explicit-');
  });
  afterEach(() => repo.cleanup());

  it('--db beats $IC_DB', async () => {
    const flag = join(repo.dir, 'flag.db');
    const env = join(repo.dir, 'env.db');
    expect((await coord(repo, ['reserve', 'a.ts', '--db', flag], as('alice', { IC_DB: env }))).exitCode).toBe(0);
    expect(existsSync(flag)).toBe(true);
    expect(existsSync(env)).toBe(false);
    expect(patterns(await coord(repo, ['list', '--db', flag], { env: { IC_DB: env } }))).toEqual(['alice:a.ts']);
  });

  it.each([
    ['IC_DB', (path: string) => ({ args: [], env: { IC_DB: path } })],
    ['--db', (path: string) => ({ args: ['--db', path], env: {} })],
  ])('a typo in %s (a directory that does not exist) is refused and creates nothing', async (_name, how) => {
    const before = tree(repo.dir);
    const { args, env } = how(join(repo.dir, 'no-such-dir', 'ic.db'));
    const reserve = await coord(repo, ['reserve', 'a.ts', ...args], as('alice', env));
    expect(reserve.exitCode).toBe(69);
    expect(reserve.json.error.message).toMatch(/no-such-dir does not exist/);
    expect(reserve.stdout.trim().split('\n')).toHaveLength(1);
    // A read of a path someone named is never "nothing is held": it is 69 too (issue 21, Build 4).
    const read = await coord(repo, ['list', ...args], { env });
    expect(read.exitCode).toBe(69);
    expect(read.json.error).toMatchObject({ code: 'DB_UNAVAILABLE', message: expect.stringContaining('no database at') });
    expect(tree(repo.dir)).toEqual(before);
  });

  it('--scope naming a missing directory or a file is refused (65) and creates nothing', async () => {
    writeFileSync(join(repo.dir, 'file.txt'), 'x');
    const before = tree(repo.dir);
    for (const scope of ['no-such-dir', 'file.txt']) {
      const result = await coord(repo, ['reserve', 'a.ts', '--scope', scope], as('alice'));
      expect(result.exitCode).toBe(65);
      expect(result.json.error).toMatchObject({ code: 'INVALID_INPUT', message: expect.stringContaining('not an existing directory') });
    }
    expect(tree(repo.dir)).toEqual(before);
  });

  it('a read-only command on a repository with no database creates nothing', async () => {
    const before = tree(repo.dir);
    for (const args of [['list'], ['list', '--active'], ['who'], ['check', 'a.ts'], ['events'], ['stats']]) {
      const result = await coord(repo, args);
      expect(result.exitCode, args.join(' ')).toBe(0);
    }
    expect(tree(repo.dir)).toEqual(before);
  });

  it('a foreign SQLite file is refused (69) by every command and stays byte-identical, journal mode included', async () => {
    const foreign = join(repo.dir, 'customers.db');
    const db = new Database(foreign);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada'), ('Grace')");
    db.close();
    const before = digest(foreign);
    const commands = [['list'], ['list', '--active'], ['who'], ['check', 'a.ts'], ['events'], ['stats'], ['reserve', 'a.ts'], ['sweep'], ['lock', 'tests'], ['claim', 'x'], ['release', '--all']];
    for (const args of commands) {
      const result = await coord(repo, [...args, '--db', foreign], as('alice'));
      expect(result.exitCode, args.join(' ')).toBe(69);
      expect(result.json.error.message).toMatch(/ic did not create/);
      expect(digest(foreign)).toBe(before);
    }
    const doctor = await ic(repo, ['doctor', '--db', foreign]);
    expect(doctor.exitCode).toBe(69);
    expect(digest(foreign)).toBe(before);
    expect(readdirSync(repo.dir).filter((name) => name.startsWith('customers.db'))).toEqual(['customers.db']);
    const check = new Database(foreign, { readonly: true });
    expect(check.pragma('journal_mode', { simple: true })).toBe('delete');
    check.close();
  });
});

describe('outside git', () => {
  it('uses <root>/.ic/ic.db where root is the nearest ancestor holding .ic/ (made by ic init)', async () => {
    const dir = realpathSync(execFileSync('mktemp', ['-d'], { encoding: 'utf8' }).trim());
    const repo: TempRepo = { dir, db: join(dir, '.ic', 'ic.db'), cleanup: () => execFileSync('rm', ['-rf', dir]) };
    try {
      mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
      expect((await ic(repo, ['init'])).exitCode).toBe(0);
      expect((await coord(repo, ['reserve', 'sub/a.ts'], as('alice'))).exitCode).toBe(0);
      expect(statSync(repo.db).isFile()).toBe(true);
      const nested = await coord(repo, ['reserve', 'a.ts'], { ...as('bob'), cwd: join(dir, 'sub') });
      expect(nested.exitCode).toBe(1);
      expect(nested.json.error.conflicts[0].held).toMatchObject({ owner: 'alice', pattern: 'sub/a.ts' });
      expect(existsSync(join(dir, 'sub', '.ic'))).toBe(false);
    } finally {
      repo.cleanup();
    }
  });
});

describe('ic init --import brings an ic 0.1 database over', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-import-');
  });
  afterEach(() => repo.cleanup());

  // The 0.1 layout (schema 2): the columns every ic database shares, in the work tree, in WAL mode.
  function makeOldDatabase(rows: { type: string; pattern: string; owner: string; mode?: string; reason?: string; expiresIn: number; released?: boolean }[]): string {
    mkdirSync(join(repo.dir, '.ic'));
    const path = join(repo.dir, '.ic', 'ic.db');
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE locks (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, token INTEGER NOT NULL, type TEXT NOT NULL, scope TEXT NOT NULL, pattern TEXT NOT NULL,
      base TEXT NOT NULL, owner TEXT NOT NULL, mode TEXT NOT NULL, reason TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, ttl_ms INTEGER NOT NULL,
      released_at INTEGER, release_reason TEXT) STRICT; PRAGMA user_version = 2;`);
    const insert = db.prepare(
      'INSERT INTO locks (id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms, released_at, release_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    rows.forEach((row, i) => {
      const now = Date.now();
      insert.run(
        `old${String(i).padStart(5, '0')}`,
        i + 1,
        row.type,
        repo.dir,
        row.pattern,
        row.pattern,
        row.owner,
        row.mode ?? 'exclusive',
        row.reason ?? null,
        now - 60_000,
        now + row.expiresIn,
        900_000,
        row.released ? now : null,
        row.released ? 'released' : null,
      );
    });
    db.close();
    return path;
  }

  it('imports the live locks (keeping owner, mode, reason and expiry), skips what conflicts, and leaves the old file unchanged', async () => {
    const old = makeOldDatabase([
      { type: 'file', pattern: 'src/**', owner: 'alice', reason: 'refactor', expiresIn: 30 * 60_000 },
      { type: 'file', pattern: 'docs/a.md', owner: 'bob', mode: 'shared', expiresIn: 10 * 60_000 },
      { type: 'claim', pattern: 'bd-9', owner: 'bob', expiresIn: 20 * 60_000 },
      { type: 'file', pattern: 'gone.ts', owner: 'carol', expiresIn: -60_000 },
      { type: 'file', pattern: 'done.ts', owner: 'carol', expiresIn: 60_000, released: true },
      { type: 'file', pattern: 'lib/x.ts', owner: 'dave', expiresIn: 60_000 },
    ]);
    // Someone started on the new location already: dave's old lock now conflicts and must not be forced in.
    expect((await coord(repo, ['reserve', 'lib/**'], as('erin'))).exitCode).toBe(0);
    const notice = await coord(repo, ['list']);
    expect(notice.stderr).toContain('ic init --import');
    const before = digest(old);
    const result = await ic(repo, ['init', '--import', '.ic/ic.db']);
    expect(result.exitCode).toBe(0);
    const imported = result.json.imported;
    expect(imported.from).toBe(old);
    expect(imported.moved_to).toBeNull(); // the source is left as it was
    expect(imported.locks.map((lock: any) => `${lock.type}:${lock.owner}:${lock.pattern}:${lock.mode}:${lock.reason}`)).toEqual([
      'file:alice:src/**:exclusive:refactor',
      'file:bob:docs/a.md:shared:null',
      'claim:bob:bd-9:exclusive:null',
    ]);
    const src = imported.locks[0];
    expect(Math.abs(Date.parse(src.expires_at) - (Date.now() + 30 * 60_000))).toBeLessThan(60_000);
    expect(imported.skipped).toEqual([expect.objectContaining({ type: 'file', pattern: 'lib/x.ts', owner: 'dave' })]);
    expect(digest(old)).toBe(before);
    expect(existsSync(`${old}.imported`)).toBe(false);
    // The imported locks bind: carol cannot take a file inside alice's src/**.
    const refused = await coord(repo, ['reserve', 'src/a.ts'], as('carol'));
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error.conflicts[0].held).toMatchObject({ owner: 'alice', pattern: 'src/**' });
    // The notice stays while the old file does; removed, it is gone.
    rmSync(join(repo.dir, '.ic'), { recursive: true });
    expect((await coord(repo, ['list'])).stderr).not.toContain('0.1 database');
  });

  it('refuses a file that is not an ic database, and changes nothing', async () => {
    const other = join(repo.dir, 'notes.db');
    const db = new Database(other);
    db.exec('CREATE TABLE notes (body TEXT)');
    db.close();
    const before = digest(other);
    const result = await ic(repo, ['init', '--import', other]);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toMatch(/not an ic database/);
    expect(digest(other)).toBe(before);
  });
});

describe('one database whatever the spelling', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-spelling-');
  });
  afterEach(() => repo.cleanup());

  it('init --import refuses the live database reached through a symlink, and moves nothing', async () => {
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    const link = `${repo.dir}-link`;
    symlinkSync(repo.dir, link);
    try {
      const result = await ic(repo, ['init', '--import', join(link, '.git', 'ic', 'ic.db')]);
      expect(result.exitCode).toBe(65);
      expect(result.json.error.message).toMatch(/into itself/);
      expect(existsSync(repo.db)).toBe(true);
      expect(patterns(await coord(repo, ['list', '--active']))).toEqual(['alice:a.ts']);
    } finally {
      execFileSync('rm', ['-f', link]);
    }
  });

  it('a relative IC_DB means the same file for a hook as for the CLI, whatever directory the edited file is in', async () => {
    mkdirSync(join(repo.dir, 'src'));
    writeFileSync(join(repo.dir, 'src', 'x.ts'), 'x');
    expect((await coord(repo, ['reserve', 'src/x.ts'], as('alice', { IC_DB: 'shared.db' }))).exitCode).toBe(0);
    const payload = JSON.stringify({ session_id: 's-1', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Write', tool_input: { file_path: join(repo.dir, 'src', 'x.ts') } });
    const result = await coord(repo, ['hook', 'claude-pre-edit'], { env: { IC_DB: 'shared.db' }, input: payload });
    expect(result.exitCode).toBe(0);
    expect(result.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
    expect(existsSync(join(repo.dir, 'src', 'shared.db'))).toBe(false);
  });

  it('transfer --pattern from a subdirectory moves the lock on that file only, not a root lock of the same text', async () => {
    mkdirSync(join(repo.dir, 'src'));
    expect((await coord(repo, ['reserve', 'x.ts', 'src/x.ts'], as('alice'))).exitCode).toBe(0);
    const moved = await coord(repo, ['transfer', '--from', 'alice', '--to', 'bob', '--pattern', 'x.ts'], { ...as('alice'), cwd: join(repo.dir, 'src') });
    expect(moved.exitCode).toBe(0);
    expect(moved.json.locks.map((lock: any) => lock.pattern)).toEqual(['src/x.ts']);
    expect(patterns(await coord(repo, ['list', '--active']))).toEqual(['alice:x.ts', 'bob:src/x.ts']);
  });
});
