// Command-line patterns read as git reads paths (issue #11): relative to the current directory inside the
// scope, `:/` from the root, absolute paths accepted; every output shows the stored, root-relative pattern.
// Also the two double grants of #11 through the real bin: symlink + escaped glob characters, and
// core.ignorecase class ranges.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, listedLocks, makeTempRepo, scopeOf, type TempRepo } from '../support/cli';
import { claudeEdit } from '../hooks/fixtures';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-patterns-cwd-');
  for (const dir of ['src/api', 'src/lib', 'real/[id]', 'app/[id]']) mkdirSync(join(repo.dir, dir), { recursive: true });
  writeFileSync(join(repo.dir, 'real/[id]/page.tsx'), '');
});
afterEach(() => repo.cleanup());

const as = (owner: string, cwd?: string) => ({ env: { IC_OWNER: owner }, cwd: cwd === undefined ? undefined : join(repo.dir, cwd) });
const patterns = (result: { json: any }): string[] => result.json.locks.map((lock: any) => lock.pattern);

describe('relative patterns from a subdirectory', () => {
  it('conflicts with the directory another owner holds (the field-trial double grant)', async () => {
    expect((await coord(repo, ['reserve', 'src/api/**'], as('alice'))).exitCode).toBe(0);
    const bob = await coord(repo, ['reserve', 'users.ts'], as('bob', 'src/api'));
    expect(bob.exitCode).toBe(1);
    expect(bob.json.error.code).toBe('CONFLICT');
    expect(bob.json.error.conflicts[0]).toMatchObject({ pattern: 'src/api/users.ts', held: { pattern: 'src/api/**', owner: 'alice' }, example: 'src/api/users.ts' });
    expect((await coord(repo, ['reserve', ':/users.ts'], as('bob', 'src/api'))).json.locks[0].pattern).toBe('users.ts');
  });

  it('stores root-relative patterns for relative, parent, root-anchored and absolute input', async () => {
    const result = await coord(repo, ['reserve', 'users.ts', '../lib/**', ':/README.md', join(repo.dir, 'docs/a.md'), '.'], as('alice', 'src/api'));
    expect(result.exitCode).toBe(0);
    expect(patterns(result)).toEqual(['src/api/users.ts', 'src/lib/**', 'README.md', 'docs/a.md', 'src/api/**']);
    const list = await coord(repo, ['list', '--active']);
    expect(list.json.locks.map((lock: any) => lock.pattern).sort()).toEqual(['README.md', 'docs/a.md', 'src/api/**', 'src/api/users.ts', 'src/lib/**']);
  });

  it('refuses ".." past the root and pathspec magic other than ":/", storing nothing', async () => {
    const climb = await coord(repo, ['reserve', 'ok.ts', '../../../x'], as('alice', 'src/api'));
    expect(climb.exitCode).toBe(65);
    expect(climb.json.error.code).toBe('OUTSIDE_SCOPE');
    const magic = await coord(repo, ['reserve', ':!x'], as('alice', 'src'));
    expect(magic.exitCode).toBe(65);
    expect(magic.json.error.code).toBe('INVALID_PATTERN');
    expect(await listedLocks(repo, ['--active'])).toEqual([]);
  });

  it('check, release --pattern and transfer --pattern read the current directory too', async () => {
    await coord(repo, ['reserve', 'src/api/users.ts', 'src/api/db.ts'], as('alice'));
    const check = await coord(repo, ['check', 'users.ts'], as('bob', 'src/api'));
    expect(check.exitCode).toBe(1);
    expect(check.json.conflicts[0].held.pattern).toBe('src/api/users.ts');
    const moved = await coord(repo, ['transfer', '--from', 'alice', '--to', 'carol', '--pattern', 'db.ts'], as('alice', 'src/api'));
    expect(patterns(moved)).toEqual(['src/api/db.ts']);
    const released = await coord(repo, ['release', '--pattern', 'users.ts'], as('alice', 'src/api'));
    expect(released.exitCode).toBe(0);
    expect(released.json.released.map((lock: any) => lock.pattern)).toEqual(['src/api/users.ts']);
    expect((await coord(repo, ['check', 'src/api/users.ts'], as('bob'))).exitCode).toBe(0);
  });

  it('maps a current directory reached through a symlink inside the scope', async () => {
    symlinkSync(join(repo.dir, 'src/api'), join(repo.dir, 'api-link'));
    const result = await coord(repo, ['reserve', 'users.ts'], as('alice', 'api-link'));
    expect(patterns(result)).toEqual(['src/api/users.ts']);
  });

  it('escapes the current directory as a literal: a directory named [id] is not a class', async () => {
    const result = await coord(repo, ['reserve', 'page.tsx'], as('alice', 'app/[id]'));
    expect(patterns(result)).toEqual(['app/\\[id\\]/page.tsx']);
    expect((await coord(repo, ['check', 'app/i/page.tsx'], as('bob'))).exitCode).toBe(0);
  });

  it('keeps relative patterns root-relative when the current directory is outside the scope', async () => {
    mkdirSync(join(repo.dir, 'sub'));
    const result = await coord(repo, ['reserve', 'a.ts', '--scope', join(repo.dir, 'sub')], as('alice', 'src/api'));
    expect(result.exitCode).toBe(0);
    expect(result.json.locks[0]).toMatchObject({ pattern: 'a.ts', scope: scopeOf(repo, join(repo.dir, 'sub')) });
  });

  it('overlap compares the patterns as written from the root, wherever it is asked from', async () => {
    const result = await coord(repo, ['overlap', 'users.ts', 'src/**'], as('alice', 'src/api'));
    expect(result.json).toMatchObject({ ok: true, overlap: false, a: 'users.ts', b: 'src/**' });
  });

  it('a hook payload with an absolute path keeps working from a subdirectory', async () => {
    const payload = claudeEdit(join(repo.dir, 'src/api'), 'sess-1', join(repo.dir, 'src/api/users.ts'));
    const hook = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: payload, cwd: join(repo.dir, 'src/api') });
    expect(hook).toMatchObject({ exitCode: 0, stdout: '' });
    const list = await coord(repo, ['list', '--active']);
    expect(list.json.locks.map((lock: any) => lock.pattern)).toEqual(['src/api/users.ts']);
  });
});

describe('the double grants of issue #11', () => {
  it('a symlinked directory before escaped glob characters is stored as its target and conflicts with it', async () => {
    symlinkSync(join(repo.dir, 'real'), join(repo.dir, 'link'));
    const alice = await coord(repo, ['reserve', 'link/\\[id\\]/page.tsx', 'link/\\[id\\]/*.ts'], as('alice'));
    expect(patterns(alice)).toEqual(['real/\\[id\\]/page.tsx', 'real/\\[id\\]/*.ts']);
    for (const alias of ['real/\\[id\\]/page.tsx', 'real/\\[id\\]/x.ts', join(repo.dir, 'link/\\[id\\]/page.tsx')]) {
      const bob = await coord(repo, ['reserve', alias], as('bob'));
      expect(bob.exitCode, alias).toBe(1);
    }
    const fromInside = await coord(repo, ['reserve', 'page.tsx'], as('bob', 'link/[id]'));
    expect(fromInside.exitCode).toBe(1);
    expect(fromInside.json.error.conflicts[0].pattern).toBe('real/\\[id\\]/page.tsx');
  });

  it('core.ignorecase folds what a class matches: [A-z] holds "_", [0-Z] does not, [Z-a] is a range, [a-C] is refused', async () => {
    execFileSync('git', ['-C', repo.dir, 'config', 'core.ignorecase', 'true']);
    expect(patterns(await coord(repo, ['reserve', '[A-z]x'], as('alice')))).toEqual(['[\\[-z]x']);
    expect((await coord(repo, ['check', '_x'], as('bob'))).exitCode).toBe(1);
    expect((await coord(repo, ['check', 'QX'], as('bob'))).exitCode).toBe(1);
    await coord(repo, ['release', '--all'], as('alice'));
    await coord(repo, ['reserve', '[0-Z]y'], as('alice'));
    expect((await coord(repo, ['check', '_y'], as('bob'))).exitCode).toBe(0);
    expect((await coord(repo, ['check', 'qY'], as('bob'))).exitCode).toBe(1);
    expect((await coord(repo, ['reserve', '[Z-a]z'], as('carol'))).json.locks[0].pattern).toBe('[\\[-az]z');
    const reversed = await coord(repo, ['reserve', '[a-C]'], as('carol'));
    expect(reversed.exitCode).toBe(65);
    expect(reversed.json.error.code).toBe('INVALID_PATTERN');
  });
});

describe('a scope reached through a symlinked temp directory', () => {
  it('maps the current directory inside it', async () => {
    const holder = realpathSync(mkdtempSync(join(tmpdir(), 'ic-patterns-alias-')));
    try {
      symlinkSync(repo.dir, join(holder, 'repo'));
      const result = await coord(repo, ['reserve', 'users.ts'], { env: { IC_OWNER: 'alice' }, cwd: join(holder, 'repo', 'src', 'api') });
      expect(patterns(result)).toEqual(['src/api/users.ts']);
    } finally {
      rmSync(holder, { recursive: true, force: true });
    }
  });
});
