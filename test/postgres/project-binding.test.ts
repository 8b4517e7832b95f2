// Keys that cannot be shared by accident (issue #38, item 4): a project key is bound on the server to the
// repository that first used it (its root commit); a clone of an unrelated repository presenting the same key
// is refused (commands 69, hooks by IC_HOOK_FAIL, doctor unhealthy), clones of the same repository are not.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, runBin, IC_BIN, type TempRepo } from '../support/cli';
import { freshDatabaseUrl, withConnection } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' }).trim();
}

function repoWithCommits(count = 1): TempRepo {
  const repo = makeTempRepo('ic-pg-bind-');
  for (let i = 0; i < count; i++) git(repo.dir, ['commit', '-q', '--allow-empty', '-m', `commit ${i} of ${repo.dir}`]);
  cleanups.push(repo.cleanup);
  return repo;
}

function cloneOf(repo: TempRepo, args: string[] = []): TempRepo {
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pg-bind-clone-')));
  const dir = join(parent, 'clone');
  execFileSync('git', ['clone', '-q', ...args, `file://${repo.dir}`, dir]);
  cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
  return { dir, db: '', cleanup: () => undefined };
}

// The key as a global setting would give it (GIT_CONFIG_*: nothing in the clone's own config).
const sharedKey = (key: string) => ({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'ic.project', GIT_CONFIG_VALUE_0: key });

function edit(repo: TempRepo, env: Record<string, string>, file = 'src/a.ts') {
  const payload = JSON.stringify({ session_id: 'bind-session', tool_name: 'Edit', tool_input: { file_path: join(repo.dir, file) }, cwd: repo.dir });
  return runBin(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd: repo.dir, env, input: payload, timeout: 30_000 });
}

describe('a project key is bound to the repository that first used it', () => {
  it('an unrelated repository presenting the key is refused everywhere, saying what to do; the owner keeps its locks', async () => {
    const owner = repoWithCommits();
    const unrelated = repoWithCommits();
    const url = freshDatabaseUrl();
    const env = { IC_DB: url, ...sharedKey('team/app') };
    expect((await coord(owner, ['reserve', 'src/a.ts', '--owner', 'alice'], { env })).exitCode).toBe(0);
    const rows = await withConnection(url, (db) => db.all('SELECT project, root_commit FROM ic.projects'));
    expect(rows).toEqual([{ project: 'team/app', root_commit: git(owner.dir, ['rev-list', '--max-parents=0', 'HEAD']) }]);

    const refused = await coord(unrelated, ['reserve', 'src/a.ts', '--owner', 'bob'], { env });
    expect(refused.exitCode).toBe(69);
    expect(refused.json.error).toMatchObject({ code: 'DB_UNAVAILABLE', project: 'team/app' });
    expect(refused.json.error.message).toContain('is bound on this server to another repository');
    expect(refused.json.error.hint).toContain('ic init --project KEY');
    expect((await coord(unrelated, ['list'], { env })).exitCode).toBe(69); // reads too: they would show another repository's locks

    const open = await edit(unrelated, env);
    expect(JSON.parse(open.stdout).hookSpecificOutput?.permissionDecision).not.toBe('deny');
    expect(open.stdout).toContain('bound on this server to another repository');
    const closed = await edit(unrelated, { ...env, IC_HOOK_FAIL: 'closed' });
    expect(JSON.parse(closed.stdout).hookSpecificOutput?.permissionDecision).toBe('deny');

    const doctor = await ic(unrelated, ['doctor'], { env });
    expect(doctor.exitCode).toBe(69);
    expect(doctor.json.checks).toContainEqual(expect.objectContaining({ name: 'project', ok: false, severity: 'error' }));
    expect((await ic(owner, ['doctor'], { env })).json.checks).toContainEqual(expect.objectContaining({ name: 'project', ok: true }));

    // Its own key works: the unrelated repository's lock is in its own scope.
    const own = await coord(unrelated, ['reserve', 'src/a.ts', '--owner', 'bob'], { env: { IC_DB: url } });
    expect(own.exitCode, own.stderr).toBe(0);
    const listed = await coord(owner, ['list'], { env });
    expect(listed.json.locks.map((lock: { owner: string }) => lock.owner)).toEqual(['alice']);
  });

  it('clones of the repository, shallow ones too, are accepted; the binding is cached in the clone', async () => {
    const owner = repoWithCommits(3);
    const url = freshDatabaseUrl();
    const env = { IC_DB: url, ...sharedKey('team/app') };
    expect((await coord(owner, ['reserve', 'src/a.ts', '--owner', 'alice'], { env })).exitCode).toBe(0);
    expect(readFileSync(join(owner.dir, '.git', 'ic-bound-projects'), 'utf8')).toContain('\tteam/app\n');

    const clone = cloneOf(owner);
    const conflict = await coord(clone, ['reserve', 'src/a.ts', '--owner', 'bob'], { env });
    expect(conflict.json.error?.code).toBe('CONFLICT'); // the same project: alice's lock is seen

    const shallow = cloneOf(owner, ['--depth', '1']);
    expect(git(shallow.dir, ['rev-parse', '--is-shallow-repository'])).toBe('true');
    const fromShallow = await coord(shallow, ['reserve', 'src/a.ts', '--owner', 'carol'], { env });
    expect(fromShallow.json.error?.code).toBe('CONFLICT');
  });

  it('a repository with no commit: an unbound key is bound at its first call after the first commit; a bound one is refused', async () => {
    const owner = repoWithCommits();
    const url = freshDatabaseUrl();
    expect((await coord(owner, ['reserve', 'src/a.ts', '--owner', 'alice'], { env: { IC_DB: url, ...sharedKey('team/app') } })).exitCode).toBe(0);

    const empty = makeTempRepo('ic-pg-bind-empty-');
    cleanups.push(empty.cleanup);
    const refused = await coord(empty, ['reserve', 'src/b.ts', '--owner', 'bob'], { env: { IC_DB: url, ...sharedKey('team/app') } });
    expect(refused.exitCode).toBe(69);
    expect(refused.json.error.message).toContain('has no commit yet');

    const fresh = { IC_DB: url, ...sharedKey('team/new') };
    expect((await coord(empty, ['reserve', 'src/b.ts', '--owner', 'bob'], { env: fresh })).exitCode).toBe(0);
    const unbound = await withConnection(url, (db) => db.get<{ root_commit: string | null }>("SELECT root_commit FROM ic.projects WHERE project = 'team/new'"));
    expect(unbound?.root_commit).toBeNull();
    git(empty.dir, ['commit', '-q', '--allow-empty', '-m', `first of ${empty.dir}`]);
    expect((await coord(empty, ['list'], { env: fresh })).exitCode).toBe(0);
    const bound = await withConnection(url, (db) => db.get<{ root_commit: string | null }>("SELECT root_commit FROM ic.projects WHERE project = 'team/new'"));
    expect(bound?.root_commit).toBe(git(empty.dir, ['rev-list', '--max-parents=0', 'HEAD']));
    expect((await coord(owner, ['list'], { env: fresh })).exitCode).toBe(69); // now another repository's key
  });
});
