import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobId, writeBlob } from '../../../src/store/git/git-objects';
import { blobPresent, dropPins, expiredPins, listPins, pinBlobs, pinRef, saveContent, RETENTION_MS } from '../../../src/store/git/keep';
import { makeTempRepo, type TempRepo } from '../../support/cli';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-27T12:00:00.000Z');

// What custody records or displaces stays in git's object store through `git gc --prune=now`: pinned by a
// ref of ic's own, written without a git process, packed by gc like any ref, dropped by sweep after 14 days.
describe('keep: pinned blobs', () => {
  let repo: TempRepo;
  let keep: { root: string; commonDir: string; objectsDir: string };
  const git = (...args: string[]) => execFileSync('git', ['-C', repo.dir, ...args], { encoding: 'utf8' });
  beforeEach(() => {
    repo = makeTempRepo('ic-keep-');
    const commonDir = join(repo.dir, '.git');
    keep = { root: repo.dir, commonDir, objectsDir: join(commonDir, 'objects') };
  });
  afterEach(() => repo.cleanup());

  it('an unpinned loose blob is pruned by gc; a pinned one survives, packed, and its ref is in packed-refs', () => {
    const lost = writeBlob(keep.objectsDir, Buffer.from('nobody pins me\n'));
    const kept = writeBlob(keep.objectsDir, Buffer.from('the holder’s afternoon\n'));
    pinBlobs(keep, [kept, null, kept], NOW);
    expect(readFileSync(join(keep.commonDir, pinRef(kept, NOW)), 'utf8')).toBe(`${kept}\n`);
    expect(git('for-each-ref', '--format=%(refname) %(objecttype)', 'refs/ic/').trim()).toBe(`refs/ic/custody/2026-11-27/${kept} blob`);
    git('gc', '--prune=now', '--quiet');
    expect(blobPresent(keep, lost)).toBe(false);
    expect(blobPresent(keep, kept)).toBe(true);
    expect(existsSync(join(keep.objectsDir, kept.slice(0, 2), kept.slice(2)))).toBe(false); // packed now
    expect(readFileSync(join(keep.commonDir, 'packed-refs'), 'utf8')).toContain(`${kept} refs/ic/custody/2026-11-27/${kept}`);
    expect(git('cat-file', '-p', kept)).toBe('the holder’s afternoon\n');
    // Pinned again after gc packed the ref: a loose copy of the same ref, which git accepts.
    pinBlobs(keep, [kept], NOW);
    expect(listPins(keep)).toEqual([{ ref: `refs/ic/custody/2026-11-27/${kept}`, blob: kept, day: '2026-11-27' }]);
    git('fsck', '--no-progress');
  });

  it('never pins a blob git does not have (a ref to it would break gc)', () => {
    const missing = blobId(Buffer.from('never stored\n'));
    pinBlobs(keep, [missing], NOW);
    expect(listPins(keep)).toEqual([]);
    git('gc', '--prune=now', '--quiet');
  });

  it('a repository on the reftable backend (a reftable/ directory) is pinned through one git update-ref: a valid ref, no lock left', () => {
    const blob = writeBlob(keep.objectsDir, Buffer.from('reftable\n'));
    execFileSync('mkdir', [join(keep.commonDir, 'reftable')]); // git 2.39 here: its own refs stay files, only ic's path changes
    pinBlobs(keep, [blob], NOW);
    expect(listPins(keep).map((pin) => pin.blob)).toEqual([blob]);
    expect(existsSync(`${join(keep.commonDir, pinRef(blob, NOW))}.lock`)).toBe(false);
  });

  it('saveContent keeps a file and a symlink as they are, and nothing for an absent path or a directory', () => {
    writeFileSync(join(repo.dir, 'work.txt'), 'unsaved work\n');
    symlinkSync('work.txt', join(repo.dir, 'link'));
    const file = saveContent(keep, 'work.txt', NOW)!;
    expect(file).toMatchObject({ blob: blobId(Buffer.from('unsaved work\n')), mode: 0o100644 });
    expect(saveContent(keep, 'link', NOW)).toMatchObject({ blob: blobId(Buffer.from('work.txt')), mode: 0o120000 });
    expect(saveContent(keep, 'absent.txt', NOW)).toBeUndefined();
    expect(saveContent(keep, '.git', NOW)).toBeUndefined();
    git('gc', '--prune=now', '--quiet');
    expect(git('cat-file', '-p', file.blob)).toBe('unsaved work\n');
  });

  it('a pin lasts 14 days after its day unless a live record needs its blob; dropped pins go from packed-refs too', () => {
    const old = writeBlob(keep.objectsDir, Buffer.from('old\n'));
    const needed = writeBlob(keep.objectsDir, Buffer.from('still recorded\n'));
    const recent = writeBlob(keep.objectsDir, Buffer.from('recent\n'));
    pinBlobs(keep, [old, needed], NOW - RETENTION_MS - DAY);
    pinBlobs(keep, [recent], NOW - RETENTION_MS + DAY);
    git('pack-refs', '--all'); // the old pins packed, as gc leaves them
    const pins = listPins(keep);
    expect(pins).toHaveLength(3);
    const expired = expiredPins(pins, new Set([needed]), NOW);
    expect(expired.map((pin) => pin.blob)).toEqual([old]);
    dropPins(keep, expired);
    expect(
      listPins(keep)
        .map((pin) => pin.blob)
        .sort(),
    ).toEqual([needed, recent].sort());
    git('gc', '--prune=now', '--quiet');
    expect(blobPresent(keep, old)).toBe(false);
    expect(blobPresent(keep, needed)).toBe(true);
  });

  it('a pin on its 14th day is kept; on the 15th it goes', () => {
    const blob = writeBlob(keep.objectsDir, Buffer.from('x\n'));
    pinBlobs(keep, [blob], NOW);
    const pins = listPins(keep);
    expect(expiredPins(pins, new Set(), NOW + RETENTION_MS)).toEqual([]);
    expect(expiredPins(pins, new Set(), NOW + RETENTION_MS + DAY)).toHaveLength(1);
  });

  it('a ref lock held by another writer leaves the pin to it: no error, its lock untouched', () => {
    const blob = writeBlob(keep.objectsDir, Buffer.from('y\n'));
    pinBlobs(keep, [blob], NOW);
    const tomorrow = NOW + DAY;
    const lock = `${join(keep.commonDir, pinRef(blob, tomorrow))}.lock`;
    execFileSync('mkdir', ['-p', join(keep.commonDir, 'refs/ic/custody/2026-11-28')]);
    writeFileSync(lock, '');
    expect(() => pinBlobs(keep, [blob], tomorrow)).not.toThrow();
    expect(existsSync(lock)).toBe(true); // not ours to remove
  });
});
