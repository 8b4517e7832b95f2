import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, copyInstall, makeTempRepo, runBin, type TempRepo } from '../support/cli';
import { onPostgres } from '../support/engine';

// bin/ic loads each bundle through a V8 code cache beside it, written by the build's warm-up on SQLite. A
// call on a path the warm-up could not run (PostgreSQL: no server at build time) compiled that path afresh
// on every call; the loader now widens the cache once, at the exit of the first such call, and a trailer in
// the cache file names the paths it holds. Each test runs a copy of bin/ and dist/, so the repository's own
// caches are never touched.
const CACHE = `hook.cjs.${process.version}-${process.arch}.cache`;

// The code paths a cache file's trailer names, or undefined for a file without one.
function trailerPaths(file: Buffer): string[] | undefined {
  const end = file.length - 4;
  if (file.toString('latin1', end) !== 'icp1') return undefined;
  const length = file.readUInt16LE(end - 2);
  const names = file.toString('latin1', end - 2 - length, end - 2);
  return names === '' ? [] : names.split(',');
}

describe('the code cache of the hook bundle', () => {
  let repo: TempRepo;
  let install: ReturnType<typeof copyInstall>;
  beforeEach(() => {
    repo = makeTempRepo('ic-cache-');
    install = copyInstall();
  });

  // The copy's cache as the build leaves it, made on SQLite only: the repository's own may already have been
  // widened by other tests' calls on a server. A call with no cache writes a fresh one at its exit.
  async function cacheMadeOnSqlite(): Promise<Buffer> {
    rmSync(cacheFile());
    const sqlite = await edit('src/warm-up.ts', { IC_DB: join(install.dir, 'warm-up.db') });
    expect(sqlite).toMatchObject({ exitCode: 0, stdout: '' });
    return readFileSync(cacheFile());
  }
  afterEach(() => {
    repo.cleanup();
    install.cleanup();
  });

  const cacheFile = () => join(install.dist, CACHE);
  const edit = (file: string, env?: Record<string, string>) =>
    runBin(install.bin, ['coord', 'hook', 'claude-pre-edit'], {
      cwd: repo.dir,
      env,
      input: JSON.stringify({
        session_id: 'cache',
        cwd: repo.dir,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(repo.dir, file), old_string: 'a', new_string: 'b' },
      }),
    });
  const held = async () => (await coord(repo, ['list', '--active', '--owner', 'claude-cache'])).json.locks.map((lock: { pattern: string }) => lock.pattern);

  it('is widened once by the first call on a server, and left as it is by calls on the path it holds', async () => {
    const built = await cacheMadeOnSqlite();
    expect(trailerPaths(built)).toEqual([]); // a cache made on SQLite names no path of its own

    expect(await edit('src/a.ts')).toMatchObject({ exitCode: 0, stdout: '' });
    const afterFirst = readFileSync(cacheFile());
    if (onPostgres) {
      expect(trailerPaths(afterFirst)).toEqual(['postgres']);
      expect(afterFirst.length).toBeGreaterThan(built.length); // what it held, and the driver's functions besides
    } else {
      expect(afterFirst.equals(built)).toBe(true);
    }

    expect(await edit('src/b.ts')).toMatchObject({ exitCode: 0, stdout: '' });
    expect(readFileSync(cacheFile()).equals(afterFirst)).toBe(true); // not rewritten on every call
    expect(await held()).toEqual(expect.arrayContaining(['src/a.ts', 'src/b.ts']));
    expect(readdirSync(install.dist).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('an older ic’s cache (no trailer) is still used, and a damaged one is replaced by a whole one', async () => {
    const built = await cacheMadeOnSqlite();
    const olderFormat = built.subarray(0, built.length - 6); // V8's bytes alone, as 0.2 wrote them
    writeFileSync(cacheFile(), olderFormat);
    expect(await edit('src/a.ts')).toMatchObject({ exitCode: 0, stdout: '' });
    // Accepted by V8 as it is (a rejected cache is written afresh, with a trailer); on a server, widened.
    if (onPostgres) expect(trailerPaths(readFileSync(cacheFile()))).toEqual(['postgres']);
    else expect(readFileSync(cacheFile()).equals(olderFormat)).toBe(true);

    writeFileSync(cacheFile(), Buffer.concat([Buffer.from('not a code cache'), Buffer.from([0, 0]), Buffer.from('icp1')]));
    expect(await edit('src/b.ts')).toMatchObject({ exitCode: 0, stdout: '' });
    const rewritten = readFileSync(cacheFile());
    expect(trailerPaths(rewritten)).toEqual(onPostgres ? ['postgres'] : []);
    expect(rewritten.length).toBeGreaterThan(10_000);
    expect(await held()).toEqual(expect.arrayContaining(['src/a.ts', 'src/b.ts']));
  });
});
