import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { claudeEdit, HOSTILE_NAMES } from '../hooks/fixtures';
import { git, writeFile } from '../hooks/git';

// Real `git commit`s through the installed guard.
describe('git pre-commit guard', () => {
  let repo: TempRepo;
  const asBob = { IC_OWNER: 'bob' };

  beforeAll(async () => {
    repo = makeTempRepo('ic-guard-');
    expect((await ic(repo, ['coord', 'install', '--git'])).exitCode).toBe(0);
  });
  afterAll(() => repo.cleanup());

  it('checks the very first commit (unborn branch)', async () => {
    const fresh = makeTempRepo('ic-guard-first-');
    try {
      await ic(fresh, ['coord', 'install', '--git']);
      await coord(fresh, ['reserve', 'first.ts', '--owner', 'alice']);
      writeFile(fresh.dir, 'first.ts');
      await git(fresh.dir, ['add', 'first.ts']);
      const commit = await git(fresh.dir, ['commit', '-q', '-m', 'first'], asBob);
      expect(commit.exitCode).toBe(1);
      expect(commit.stderr).toContain('first.ts');
      expect((await git(fresh.dir, ['commit', '-q', '-m', 'first'], { IC_OWNER: 'alice' })).exitCode).toBe(0);
    } finally {
      fresh.cleanup();
    }
  });

  it('allows a first commit when nothing is held and no database exists yet', async () => {
    writeFile(repo.dir, 'README.md');
    await git(repo.dir, ['add', '-A']);
    const commit = await git(repo.dir, ['commit', '-q', '-m', 'init'], asBob);
    expect(commit.exitCode).toBe(0);
  });

  it('blocks a staged path another owner holds, listing path, holder, pattern and expiry', async () => {
    await coord(repo, ['reserve', 'src/**', '--owner', 'alice']);
    writeFile(repo.dir, 'src/a.ts');
    await git(repo.dir, ['add', 'src/a.ts']);
    const commit = await git(repo.dir, ['commit', '-q', '-m', 'a'], asBob);
    expect(commit.exitCode).toBe(1);
    expect(commit.stderr).toContain('src/a.ts');
    expect(commit.stderr).toContain('alice');
    expect(commit.stderr).toContain('"src/**"');
    expect(commit.stderr).toMatch(/until \d{4}-\d\d-\d\dT[\d:.]+Z/);
    expect((await git(repo.dir, ['log', '--oneline'])).stdout.split('\n')).toHaveLength(1);
  });

  it('IC_GUARD=warn reports and commits; IC_GUARD=off skips', async () => {
    const warned = await git(repo.dir, ['commit', '-q', '-m', 'a'], { ...asBob, IC_GUARD: 'warn' });
    expect(warned.exitCode).toBe(0);
    expect(warned.stderr).toContain('warning');
    writeFile(repo.dir, 'src/b.ts');
    await git(repo.dir, ['add', 'src/b.ts']);
    const skipped = await git(repo.dir, ['commit', '-q', '-m', 'b'], { ...asBob, IC_GUARD: 'off' });
    expect(skipped).toMatchObject({ exitCode: 0, stderr: '' });
  });

  it('allows the holder itself and paths nobody holds; an unset IC_OWNER counts every holder as another', async () => {
    writeFile(repo.dir, 'src/c.ts');
    writeFile(repo.dir, 'docs/free.md');
    await git(repo.dir, ['add', 'src/c.ts']);
    expect((await git(repo.dir, ['commit', '-q', '-m', 'c'], {})).exitCode).toBe(1);
    expect((await git(repo.dir, ['commit', '-q', '-m', 'c'], { IC_OWNER: 'alice' })).exitCode).toBe(0);
    await git(repo.dir, ['add', 'docs/free.md']);
    expect((await git(repo.dir, ['commit', '-q', '-m', 'free'], asBob)).exitCode).toBe(0);
  });

  it('commit -a (GIT_INDEX_FILE set by git) is checked too', async () => {
    writeFile(repo.dir, 'src/a.ts', 'changed\n');
    const commit = await git(repo.dir, ['commit', '-q', '-a', '-m', 'all'], asBob);
    expect(commit.exitCode).toBe(1);
    expect(commit.stderr).toContain('src/a.ts');
    await git(repo.dir, ['checkout', '--', 'src/a.ts']);
  });

  it('renames count on both sides', async () => {
    await coord(repo, ['release', '--all', '--owner', 'alice']);
    writeFile(repo.dir, 'lib/old.ts');
    await git(repo.dir, ['add', 'lib/old.ts']);
    expect((await git(repo.dir, ['commit', '-q', '-m', 'old'], asBob)).exitCode).toBe(0);
    await coord(repo, ['reserve', 'lib/old.ts', '--owner', 'alice']);
    await git(repo.dir, ['mv', 'lib/old.ts', 'lib/new.ts']);
    const fromHeld = await git(repo.dir, ['commit', '-q', '-m', 'mv'], asBob);
    expect(fromHeld.exitCode).toBe(1);
    expect(fromHeld.stderr).toContain('lib/old.ts');
    await coord(repo, ['release', '--all', '--owner', 'alice']);
    await coord(repo, ['reserve', 'lib/new.ts', '--owner', 'alice']);
    const toHeld = await git(repo.dir, ['commit', '-q', '-m', 'mv'], asBob);
    expect(toHeld.exitCode).toBe(1);
    expect(toHeld.stderr).toContain('lib/new.ts');
    await coord(repo, ['release', '--all', '--owner', 'alice']);
    expect((await git(repo.dir, ['commit', '-q', '-m', 'mv'], asBob)).exitCode).toBe(0);
  });

  it('hostile file names: held literally, listed, nothing executed', async () => {
    const names = [...HOSTILE_NAMES.map((name) => `hostile/${name}`), 'hostile/new\nline.ts'];
    for (const name of names) writeFile(repo.dir, name, 'x\n');
    for (const name of HOSTILE_NAMES) {
      await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, 'alpha', join(repo.dir, 'hostile', name)) });
    }
    await git(repo.dir, ['add', '-A', 'hostile']);
    const commit = await git(repo.dir, ['commit', '-q', '-m', 'hostile'], asBob);
    expect(commit.exitCode).toBe(1);
    for (const name of HOSTILE_NAMES) expect(commit.stderr).toContain(name.replace(/["\\]/g, (c) => `\\${c}`));
    expect(commit.stderr).not.toContain('new\\nline');
    expect(existsSync(join(repo.dir, 'pwned'))).toBe(false);
    expect(existsSync(join(repo.dir, 'hostile', 'pwned'))).toBe(false);
    // A directory lock covers the name no literal pattern can hold.
    await coord(repo, ['release', '--all', '--owner', 'claude-alpha']);
    expect((await coord(repo, ['reserve', 'hostile/**', '--owner', 'carol'])).exitCode).toBe(0);
    const again = await git(repo.dir, ['commit', '-q', '-m', 'hostile'], { IC_OWNER: 'claude-alpha' });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('"hostile/new\\nline.ts"');
    expect(again.stderr).toContain('carol');
  });
});
