// rootsOf (src/coord/project-key.ts): a repository's root commits, without starting git where HEAD shows none yet.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rootsOf } from '../../src/coord/project-key';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@localhost', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
function repo(commit: boolean): { dir: string; root: string | undefined } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-roots-')));
  dirs.push(dir);
  git(dir, 'init', '-q');
  if (!commit) return { dir, root: undefined };
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'root');
  return { dir, root: git(dir, 'rev-list', '--max-parents=0', 'HEAD') };
}

describe('rootsOf', () => {
  it('none before the first commit', () => {
    expect(rootsOf(repo(false).dir)).toEqual([]);
  });

  it('the root commit, with its branch a loose ref or only in packed-refs', () => {
    const loose = repo(true);
    expect(rootsOf(loose.dir)).toEqual([loose.root]);
    const packed = repo(true);
    git(packed.dir, 'pack-refs', '--all');
    expect(existsSync(join(packed.dir, '.git', git(packed.dir, 'symbolic-ref', 'HEAD')))).toBe(false);
    expect(rootsOf(packed.dir)).toEqual([packed.root]);
  });

  it('the root commit in a linked worktree (.git is a file there)', () => {
    const main = repo(true);
    const linked = join(main.dir, 'linked');
    git(main.dir, 'worktree', 'add', '-q', '-b', 'other', linked);
    expect(rootsOf(linked)).toEqual([main.root]);
  });
});
