import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyBlobTo, hashFile, storeFile, writeBlob } from '../../../src/store/git/git-objects';
import { repoAt, type Repo } from '../../../src/store/git/files';
import { checkTarget, moveAside, writeContent } from '../../../src/hooks/custody/safe-write';
import { startDeadline } from '../../../src/store/deadline';
import { makeTempRepo, type TempRepo } from '../../support/cli';

// The restore's write path against a real work tree, with git as the oracle for the stored objects.
describe('custody safe write', () => {
  let temp: TempRepo;
  let repo: Repo;
  const file = (path: string, text: string) => {
    mkdirSync(join(temp.dir, path, '..'), { recursive: true });
    writeFileSync(join(temp.dir, path), text);
  };
  const blob = (text: string) => ({ blob: writeBlob(repo.objectsDir, Buffer.from(text)), mode: 0o100644, stat: '' });
  beforeEach(() => {
    temp = makeTempRepo('ic-safe-write-');
    repo = repoAt(temp.dir, join(temp.dir, '.git'));
  });
  afterEach(() => temp.cleanup());

  it('refuses a symlinked parent, a file parent, a directory, a nested repository and paths leaving the root', () => {
    file('elsewhere/a.ts', 'not held\n');
    symlinkSync('elsewhere', join(temp.dir, 'linked'));
    file('plain', 'x');
    mkdirSync(join(temp.dir, 'dir/sub'), { recursive: true });
    mkdirSync(join(temp.dir, 'nested/.git'), { recursive: true });
    expect(checkTarget(repo, 'linked/a.ts', true)).toEqual({ reason: 'symlink', at: 'linked' });
    expect(checkTarget(repo, 'plain/a.ts', true)).toEqual({ reason: 'not_directory', at: 'plain' });
    expect(checkTarget(repo, 'dir/sub', true)).toEqual({ reason: 'directory', at: 'dir/sub' });
    expect(checkTarget(repo, 'nested/a.ts', true)).toEqual({ reason: 'outside', at: 'nested' });
    for (const path of ['../x', 'a/../../x', '.git/config', '/etc/passwd']) expect(checkTarget(repo, path, true)?.reason).toBe('outside');
    expect(writeContent(repo, 'linked/a.ts', blob('held\n'), startDeadline(5_000))).toEqual({ reason: 'symlink', at: 'linked' });
    expect(readFileSync(join(temp.dir, 'elsewhere/a.ts'), 'utf8')).toBe('not held\n');
    expect(moveAside(repo, 'linked/a.ts', join(temp.dir, '.git/ic/displaced/x/a.ts'))).toEqual({ reason: 'symlink', at: 'linked' });
    expect(readFileSync(join(temp.dir, 'elsewhere/a.ts'), 'utf8')).toBe('not held\n');
  });

  it('writes through a temp file outside the work tree, creating missing parents, replacing a link itself', () => {
    expect(writeContent(repo, 'new/deep/a.ts', blob('held\n'), startDeadline(5_000))).toBeUndefined();
    expect(readFileSync(join(temp.dir, 'new/deep/a.ts'), 'utf8')).toBe('held\n');
    file('target.txt', 'unheld\n');
    symlinkSync('target.txt', join(temp.dir, 'swapped.ts'));
    expect(writeContent(repo, 'swapped.ts', blob('held 2\n'), startDeadline(5_000))).toBeUndefined();
    expect(readFileSync(join(temp.dir, 'swapped.ts'), 'utf8')).toBe('held 2\n');
    expect(readFileSync(join(temp.dir, 'target.txt'), 'utf8')).toBe('unheld\n');
    expect(writeContent(repo, 'link.ts', { ...blob('target.txt'), mode: 0o120000 }, startDeadline(5_000))).toBeUndefined();
    expect(readlinkSync(join(temp.dir, 'link.ts'))).toBe('target.txt');
    expect(readdirSync(join(temp.dir, '.git/ic/tmp'))).toEqual([]);
    expect(readdirSync(temp.dir).filter((name) => name.includes('ic-restore'))).toEqual([]);
  });

  it('streams a large file: hashed and stored as git names and reads it, copied back through git', () => {
    const big = join(temp.dir, 'big.bin');
    const content = Buffer.alloc(20 * 1024 * 1024 + 12_345);
    for (let i = 0; i < content.length; i += 4096) content.writeUInt32LE((i * 2_654_435_761) >>> 0, i);
    writeFileSync(big, content);
    const id = execFileSync('git', ['-C', temp.dir, 'hash-object', 'big.bin'], { encoding: 'utf8' }).trim();
    expect(hashFile(big)).toBe(id);
    expect(storeFile(repo.objectsDir, big)).toBe(id);
    execFileSync('git', ['-C', temp.dir, 'fsck', '--no-dangling'], { stdio: 'ignore' }); // the stored object is valid zlib, its id right
    const out = join(temp.dir, '.git', 'copy.bin');
    const fd = openSync(out, 'w');
    try {
      copyBlobTo(repo.objectsDir, repo.commonDir, id, fd, startDeadline(30_000));
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(out).equals(content)).toBe(true);
  });

  it('a copy that cannot finish within the deadline stops with TIMEOUT', () => {
    const big = join(temp.dir, 'big.bin');
    writeFileSync(big, Buffer.alloc(10 * 1024 * 1024, 7));
    const spent = { budgetMs: 1, leftMs: () => 0, exceeded: (step: string) => Object.assign(new Error(step), { code: 'TIMEOUT' }) };
    expect(() => storeFile(repo.objectsDir, big, spent as never)).toThrow('reading a large held file');
    expect(readdirSync(repo.objectsDir).filter((name) => name.startsWith('tmp_ic_'))).toEqual([]);
  });
});
