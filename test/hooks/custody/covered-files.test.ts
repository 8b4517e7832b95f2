import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coveredFiles, repoAt, type HeldPattern } from '../../../src/store/git/files';
import { matchPath } from '../../../src/core/glob';
import { makeTempRepo, type TempRepo } from '../../support/cli';

const held = (pattern: string): HeldPattern => ({ pattern, holder: 'alice', lockId: `l-${pattern}`, createdAt: 0 });

// The files a command's custody looks after: tracked and untracked files under held patterns, plus paths a
// holder recorded, however many held patterns name directories that do not exist.
describe('coveredFiles', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-covered-');
    const files: Record<string, string> = { 'src/a.ts': 'a', 'src/deep/b.ts': 'b', 'docs/guide.md': 'g', 'lib/m3/kept.ts': 'k' };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(repo.dir, path, '..'), { recursive: true });
      writeFileSync(join(repo.dir, path), text);
    }
    execFileSync('git', ['-C', repo.dir, 'add', '-A']);
    execFileSync('git', ['-C', repo.dir, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'seed']);
    mkdirSync(join(repo.dir, 'gen', 'sub'), { recursive: true });
    writeFileSync(join(repo.dir, 'gen', 'sub', 'out.txt'), 'untracked');
    writeFileSync(join(repo.dir, 'lib', 'm3', 'new.ts'), 'untracked too');
  });
  afterAll(() => repo.cleanup());

  it('finds every tracked, untracked and recorded file under held globs among a thousand missing directories', () => {
    const missing = Array.from({ length: 1000 }, (_, i) => held(`lib/m${i + 10}/**`));
    const patterns = [...missing, held('src/**'), held('gen/**'), held('lib/m3/*.ts'), held('docs/*.txt'), held('nowhere/at/all/**')];
    const recorded = (base: string) => (base === 'lib/m500' ? ['lib/m500/written-then-deleted.ts'] : []);
    const covered = coveredFiles(repoAt(repo.dir, join(repo.dir, '.git')), patterns, recorded, matchPath);
    expect([...covered.files.keys()].sort()).toEqual(['gen/sub/out.txt', 'lib/m3/kept.ts', 'lib/m3/new.ts', 'lib/m500/written-then-deleted.ts', 'src/a.ts', 'src/deep/b.ts']);
    expect([...covered.tracked.keys()].sort()).toEqual(['lib/m3/kept.ts', 'src/a.ts', 'src/deep/b.ts']);
    expect(covered.files.get('gen/sub/out.txt')!.pattern).toBe('gen/**');
  });

  it('a held file inside a path whose parent is a file is simply absent', () => {
    const covered = coveredFiles(repoAt(repo.dir, join(repo.dir, '.git')), [held('src/a.ts/x/**'), held('docs/guide.md/**')], () => [], matchPath);
    expect([...covered.files.keys()]).toEqual(['docs/guide.md']); // `dir/**` covers `dir` itself, here a file
  });
});
