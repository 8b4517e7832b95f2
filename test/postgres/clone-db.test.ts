// The server belongs to the clone (issue #38, item 1): `ic init --db URL` records the URL, never a password,
// as the clone's git config ic.db; every command, hook and git hook there uses it without IC_DB (--db and
// IC_DB still win); a clone bound to a server that cannot be reached never falls back to a local file.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, runBin, IC_BIN, type TempRepo } from '../support/cli';
import { freshDatabaseUrl, serverTcpUrl } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repoWithCommit(): TempRepo {
  const repo = makeTempRepo('ic-pg-clone-db-');
  execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', `first commit of ${repo.dir}`]);
  cleanups.push(repo.cleanup);
  return repo;
}

function configDb(repo: TempRepo): string {
  try {
    return execFileSync('git', ['-C', repo.dir, 'config', '--get', 'ic.db'], { encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

const localFile = (repo: TempRepo): string => join(repo.dir, '.git', 'ic', 'ic.db');

function edit(repo: TempRepo, session: string, file: string, env: Record<string, string> = {}) {
  const payload = JSON.stringify({ session_id: session, tool_name: 'Edit', tool_input: { file_path: join(repo.dir, file) }, cwd: repo.dir });
  return runBin(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd: repo.dir, env, input: payload, timeout: 30_000 });
}

describe('ic init --db URL binds the clone to the server', () => {
  it('records the URL in git config ic.db; commands and hooks then use the server without IC_DB', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl();
    const init = await ic(repo, ['init', '--db', url]);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(configDb(repo)).toBe(url);
    expect(init.json.db_recorded).toBe(url);

    const reserved = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice']); // no IC_DB, no --db
    expect(reserved.exitCode, reserved.stderr).toBe(0);
    const hook = await edit(repo, 'clone-db-session', 'src/b.ts');
    expect(hook.exitCode, hook.stderr).toBe(0);
    expect(hook.stdout).not.toContain('deny');
    // Both are on the server, as --db sees it; nothing was written beside the clone.
    const listed = await coord(repo, ['list', '--db', url]);
    expect(listed.json.locks.map((lock: { pattern: string }) => lock.pattern).sort()).toEqual(['src/a.ts', 'src/b.ts']);
    expect(existsSync(localFile(repo))).toBe(false);
    const doctor = await ic(repo, ['doctor']);
    expect(doctor.json.db).toMatchObject({ path: url, source: 'ic.db' });

    // IC_DB still wins: a SQLite file named there is used instead.
    const other = join(repo.dir, '.git', 'other.db');
    const elsewhere = await coord(repo, ['list'], { env: { IC_DB: other } });
    expect(elsewhere.exitCode, elsewhere.stderr).not.toBe(0); // that file does not exist: 69, not the server's locks
    expect(elsewhere.stdout).not.toContain('src/a.ts');
  });

  it('never records a password', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl(serverTcpUrl()); // postgresql://postgres:<password>@127.0.0.1:…
    const init = await ic(repo, ['init', '--db', url]);
    expect(init.exitCode, init.stderr).toBe(0);
    expect(configDb(repo)).toBe(url.replace(/:[^:@/]+@/, '@'));
    expect(configDb(repo)).not.toContain('throwaway-superuser-secret');
    expect(init.stdout).not.toContain('throwaway-superuser-secret');
    expect(init.json.password_not_recorded).toContain('~/.pgpass');
    const text = await ic(repo, ['init', '--db', url, '--format', 'table']);
    expect(text.stdout).toContain("warning: the URL's password was not recorded");
  });

  it('a clone bound to a server that is down: commands 69, hooks by IC_HOOK_FAIL, doctor unhealthy, and no local file', async () => {
    const repo = repoWithCommit();
    execFileSync('git', ['-C', repo.dir, 'config', 'ic.db', 'postgresql://ic@127.0.0.1:1/ic?connect_timeout=2']);
    const listed = await coord(repo, ['list']);
    expect(listed.exitCode, listed.stderr).toBe(69);
    expect(listed.json.error.message).toContain('127.0.0.1:1');
    const reserved = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice']);
    expect(reserved.exitCode).toBe(69);
    const open = await edit(repo, 'down-session', 'src/a.ts');
    expect(JSON.parse(open.stdout).hookSpecificOutput?.permissionDecision).not.toBe('deny');
    expect(open.stdout).toContain('127.0.0.1:1');
    const closed = await edit(repo, 'down-session', 'src/a.ts', { IC_HOOK_FAIL: 'closed' });
    expect(JSON.parse(closed.stdout).hookSpecificOutput?.permissionDecision).toBe('deny');
    const doctor = await ic(repo, ['doctor']);
    expect(doctor.exitCode).not.toBe(0);
    expect(doctor.json.healthy).toBe(false);
    expect(doctor.json.db.source).toBe('ic.db');
    expect(existsSync(localFile(repo))).toBe(false);
  });

  it('uninstall --purge removes what ic recorded in the clone and says what stays on the server, which keeps it', async () => {
    const repo = repoWithCommit();
    const url = freshDatabaseUrl();
    expect((await ic(repo, ['init', '--db', url])).exitCode).toBe(0);
    expect((await coord(repo, ['install', '--git'])).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice'])).exitCode).toBe(0);
    const project = execFileSync('git', ['-C', repo.dir, 'config', '--get', 'ic.project'], { encoding: 'utf8' }).trim();

    const dry = await coord(repo, ['uninstall', '--purge', '--dry-run']);
    expect(dry.json.kept_on_server).toEqual({ db: url, project });
    expect(configDb(repo)).toBe(url); // a dry run writes nothing

    const purged = await coord(repo, ['uninstall', '--purge']);
    expect(purged.exitCode, purged.stderr).toBe(0);
    expect(purged.json.kept_on_server).toEqual({ db: url, project });
    expect(purged.json.changed).toContainEqual({ file: join(repo.dir, '.git', 'config'), action: 'updated' });
    expect(configDb(repo)).toBe('');
    expect(() => execFileSync('git', ['-C', repo.dir, 'config', '--get', 'ic.project'], { stdio: 'ignore' })).toThrow();
    expect(existsSync(join(repo.dir, '.git', 'ic-bound-projects'))).toBe(false); // the binding cache
    expect(existsSync(join(repo.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);

    // The server still has the clone's lock: another clone of the repository meets it.
    const listed = await coord(repo, ['list', '--db', url]);
    expect(listed.json.locks.map((lock: { pattern: string }) => lock.pattern)).toEqual(['src/a.ts']);
  });

  it('a recorded value that is not a server URL is refused, not read as no server', async () => {
    const repo = repoWithCommit();
    execFileSync('git', ['-C', repo.dir, 'config', 'ic.db', '/tmp/somewhere.db']);
    const listed = await coord(repo, ['list']);
    expect(listed.exitCode).toBe(64);
    expect(listed.stderr + listed.stdout).toContain('ic.db');
    expect(existsSync(localFile(repo))).toBe(false);
  });

  it('a badly formed server URL is a usage error (64) saying what is wrong, for init and every command', async () => {
    const repo = repoWithCommit();
    const init = await ic(repo, ['init', '--db', 'postgresql://localhost:99999/x']);
    expect(init.exitCode, init.stderr).toBe(64);
    expect(init.json.error.message).toContain('the port "99999" is not a valid port');
    expect(configDb(repo)).toBe('');
    for (const url of ['postgresql://h:abc/db', 'postgresql://[oops/db', 'postgresql://h/db?sslmode=bogus']) {
      const listed = await coord(repo, ['list', '--active'], { env: { IC_DB: url } });
      expect(listed.exitCode, listed.stderr).toBe(64);
      expect(listed.json.error.code).toBe('USAGE');
      expect(listed.json.error.message).toContain(url);
    }
  });
});
