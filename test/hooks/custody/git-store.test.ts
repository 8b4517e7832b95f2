import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blobId, readBlob, writeBlob } from '../../../src/store/git/git-objects';
import { readIndex } from '../../../src/store/git/index-file';
import { makeTempRepo, type TempRepo } from '../../support/cli';

// custody reads git's index and writes git's loose objects in-process; git itself is the oracle.
describe('git object store and index, read and written in-process', () => {
  let repo: TempRepo;
  const git = (...args: string[]) => execFileSync('git', ['-C', repo.dir, ...args], { encoding: 'utf8' });
  beforeAll(() => {
    repo = makeTempRepo('ic-custody-git-');
    const files: Record<string, string> = { 'a.txt': 'alpha\n', 'src/deep/b.ts': 'export {};\n', 'src/deep/c.ts': '', 'ünï/cödé.md': '# hi\n', 'x/y/z/long-name-that-shares-a-prefix.txt': 'z' };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(repo.dir, path, '..'), { recursive: true });
      writeFileSync(join(repo.dir, path), text);
    }
    git('add', '-A');
    git('commit', '-qm', 'seed');
  });
  afterAll(() => repo.cleanup());

  it('a blob written in-process is the blob git names and reads back', () => {
    const content = Buffer.from('some held content\n\0binary too\n');
    const objects = join(repo.dir, '.git', 'objects');
    const id = writeBlob(objects, content);
    expect(id).toBe(blobId(content));
    expect(execFileSync('git', ['-C', repo.dir, 'hash-object', '--stdin'], { input: content, encoding: 'utf8' }).trim()).toBe(id);
    expect(execFileSync('git', ['-C', repo.dir, 'cat-file', 'blob', id])).toEqual(content);
    expect(writeBlob(objects, content)).toBe(id); // already there: not written again
    expect(readBlob(objects, join(repo.dir, '.git'), id)).toEqual(content);
  });

  it('reads a packed blob through git', () => {
    git('gc', '-q');
    const id = git('rev-parse', 'HEAD:a.txt').trim();
    expect(readBlob(join(repo.dir, '.git', 'objects'), join(repo.dir, '.git'), id).toString()).toBe('alpha\n');
  });

  it.each([2, 3, 4])('index version %i: every entry, with the blob ids and modes git lists', (version) => {
    git('update-index', '--index-version', String(version));
    const expected = git('ls-files', '-s', '-z')
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const [meta, path] = line.split('\t');
        const [mode, blob] = meta!.split(' ');
        return { path, blob, mode: parseInt(mode!, 8) };
      });
    const entries = readIndex(join(repo.dir, '.git', 'index'), () => true).map(({ path, blob, mode }) => ({ path, blob, mode }));
    expect(entries).toEqual(expected);
    expect(readIndex(join(repo.dir, '.git', 'index'), (path) => path.startsWith('src/')).map((e) => e.path)).toEqual(['src/deep/b.ts', 'src/deep/c.ts']);
    expect(readIndex(join(repo.dir, '.git', 'index'), () => true, ['src/deep']).map((e) => e.path)).toEqual(['src/deep/b.ts', 'src/deep/c.ts']); // skipped by their bytes
  });
});
