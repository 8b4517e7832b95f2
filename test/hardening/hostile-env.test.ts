// The hostile-environment rows of the hardening issue that are about where ic runs: the clock, the
// working directory, the file system. Each asserts the exit code, exactly one JSON document on stdout,
// no stack trace, and that a failed command changed nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, IC_BIN, makeTempRepo, runBin, type RunResult, type TempRepo } from '../support/cli';
import { icBinFor } from '../support/reachable';

const as = (owner: string, env: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...env } });
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

// One JSON document, no stack trace, the documented code.
function expectClean(result: RunResult, exitCode: number, code?: string): void {
  expect(result.exitCode, `${result.stdout}${result.stderr}`).toBe(exitCode);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  expect(result.json).toBeDefined();
  if (code) expect(result.json.error.code).toBe(code);
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-hostile-');
});
const cleanups: (() => void)[] = [];
afterEach(() => {
  repo.cleanup();
  while (cleanups.length) cleanups.pop()!();
});

describe('time', () => {
  it('IC_NOW alone is ignored: a stray future clock cannot grant over a live lock', async () => {
    expect((await coord(repo, ['reserve', 'src/**'], as('alice'))).exitCode).toBe(0);
    const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
    const stray = await coord(repo, ['reserve', 'src/a.ts'], as('bob', { IC_NOW: inAnHour, IC_TEST_CLOCK: '' }));
    expectClean(stray, 1, 'CONFLICT');
    const century = await coord(repo, ['reserve', 'docs/**'], as('carol', { IC_NOW: new Date(Date.now() + 100 * 365 * 86_400_000).toISOString(), IC_TEST_CLOCK: '' }));
    expect(century.exitCode).toBe(0);
    expect(Date.parse(century.json.locks[0].expires_at)).toBeLessThan(Date.now() + 3_600_000);
  });

  it.each([['8639999999999999'], ['99999999999999999999'], ['1970-01-01T00:00:00Z'], ['9999-12-31T23:00:00Z']])(
    'IC_NOW=%s (with the switch) is refused with 65 and nothing is committed',
    async (value) => {
      expect((await coord(repo, ['reserve', 'kept.ts'], as('alice'))).exitCode).toBe(0);
      const before = (await coord(repo, ['events'])).json.events.length;
      const result = await coord(repo, ['reserve', 'x'], as('bob', { IC_NOW: value }));
      expectClean(result, 65, 'INVALID_INPUT');
      expect(result.json.error.message).toMatch(/IC_NOW/);
      // Everyone else carries on: reads and writes work, and nothing was added.
      expect((await coord(repo, ['events'])).json.events).toHaveLength(before);
      for (const args of [['list'], ['who'], ['check', 'x']]) expect((await coord(repo, args)).exitCode).toBe(0);
      expect((await coord(repo, ['reserve', 'x'], as('bob'))).exitCode).toBe(0);
    },
  );

  it('a clock stepped back never shortens a lock or writes a time before the newest event', async () => {
    const first = await coord(repo, ['reserve', 'a.ts', '--ttl', '1h'], as('alice'));
    const expires = Date.parse(first.json.locks[0].expires_at);
    const stepped = await coord(repo, ['renew', '--ttl', '1h'], as('alice', { IC_NOW: new Date(Date.now() - 30 * 60_000).toISOString() }));
    expect(stepped.exitCode).toBe(0);
    expect(Date.parse(stepped.json.locks[0].expires_at)).toBeGreaterThanOrEqual(expires);
    const events = (await coord(repo, ['events'])).json.events.map((event: any) => Date.parse(event.created_at));
    expect(events).toEqual([...events].sort((a, b) => a - b));
  });
});

describe('working directory', () => {
  it('a deleted working directory: 69 with what to do, for any command', async () => {
    const gone = join(repo.dir, 'gone');
    mkdirSync(gone);
    // A shell that cds in, removes its own directory, then runs ic: Node cannot read its cwd.
    for (const args of [
      ['coord', 'overlap', 'a', 'b'],
      ['coord', 'list'],
      ['coord', 'reserve', 'a.ts'],
    ]) {
      const script = `cd "$1" && rmdir "$1" && shift && exec "$@"`;
      const result = await runBin('bash', ['-c', script, 'bash', gone, IC_BIN, ...args], { cwd: repo.dir, env: { IC_OWNER: 'alice' } });
      expectClean(result, 69, 'DB_UNAVAILABLE');
      expect(result.json.error.message).toMatch(/current directory no longer exists.*cd into your project/);
      mkdirSync(gone);
    }
  });
});

describe('working directory: hooks', () => {
  it('the Claude hook from a deleted working directory still denies a held file, with exit 0', async () => {
    writeFileSync(join(repo.dir, 'a.ts'), 'a');
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    const gone = join(repo.dir, 'gone');
    mkdirSync(gone);
    const payload = JSON.stringify({ session_id: 's-1', cwd: gone, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(repo.dir, 'a.ts') } });
    const script = `cd "$1" && rmdir "$1" && shift && exec "$@"`;
    const result = await runBin('bash', ['-c', script, 'bash', gone, IC_BIN, 'coord', 'hook', 'claude-pre-edit'], { cwd: repo.dir, input: payload });
    expect(result.exitCode).toBe(0);
    expect(result.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringContaining('alice') });
    expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  });
});

describe('file system', () => {
  it('a symlink loop in place of the database: 69', async () => {
    const dir = join(repo.dir, 'loop');
    mkdirSync(dir);
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync(join(dir, 'a'), join(dir, 'b'));
    for (const args of [['reserve', 'x'], ['list']]) expectClean(await coord(repo, args, as('alice', { IC_DB: join(dir, 'a') })), 69, 'DB_UNAVAILABLE');
  });

  it('a path component over 255 bytes: 69', async () => {
    const db = join(repo.dir, 'x'.repeat(300), 'ic.db');
    for (const args of [['reserve', 'x'], ['list']]) expectClean(await coord(repo, args, as('alice', { IC_DB: db })), 69, 'DB_UNAVAILABLE');
  });

  it('absurd IC_BUSY_TIMEOUT and IC_LOCK_DELAY are bad input (65), not a crash', async () => {
    expectClean(await coord(repo, ['reserve', 'x'], as('alice', { IC_BUSY_TIMEOUT: '99999999999d' })), 65, 'INVALID_INPUT');
    expectClean(await coord(repo, ['list'], { env: { IC_LOCK_DELAY: '99999999999d' } }), 65, 'INVALID_INPUT');
    expect(existsSync(repo.db)).toBe(false);
  });

  it('a FIFO, a socket or a device in place of the database: 69 at once, doctor too (never hangs)', async () => {
    mkdirSync(dirname(repo.db));
    execFileSync('mkfifo', [repo.db]);
    for (const args of [['coord', 'reserve', 'x'], ['coord', 'list'], ['doctor']]) {
      expectClean(await ic(repo, args, as('alice')), 69);
    }
    rmSync(repo.db);
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(repo.db, resolve));
    try {
      expectClean(await coord(repo, ['reserve', 'x'], as('alice')), 69, 'DB_UNAVAILABLE');
    } finally {
      server.close();
    }
    expectClean(await coord(repo, ['list'], as('alice', { IC_DB: '/dev/null' })), 69, 'DB_UNAVAILABLE');
  });

  it('a directory in place of -wal or -shm: 69 for commands, and doctor names it', async () => {
    expect((await coord(repo, ['reserve', 'kept.ts'], as('alice'))).exitCode).toBe(0);
    const before = digest(repo.db);
    mkdirSync(`${repo.db}-shm`);
    expectClean(await coord(repo, ['reserve', 'x'], as('bob')), 69, 'DB_UNAVAILABLE');
    const doctor = await ic(repo, ['doctor']);
    expectClean(doctor, 69);
    expect(doctor.json.checks.find((check: any) => !check.ok)).toMatchObject({ name: 'companion_files', fix: expect.stringContaining('-shm') });
    expect(digest(repo.db)).toBe(before);
  });

  it('a dangling symlink in place of the database: doctor reports it', async () => {
    mkdirSync(dirname(repo.db));
    symlinkSync(join(repo.dir, 'nowhere', 'ic.db'), repo.db);
    const doctor = await ic(repo, ['doctor']);
    expectClean(doctor, 69);
    expect(doctor.json.checks.find((check: any) => !check.ok).detail).toMatch(/symlink .* does not exist/);
    expectClean(await coord(repo, ['reserve', 'x'], as('alice')), 69, 'DB_UNAVAILABLE');
  });

  // Root reads everything; an unprivileged user shows what "unreadable" means.
  it.skipIf(process.getuid?.() !== 0)('an existing database another user cannot read is 69, never "no database"', async () => {
    expect((await coord(repo, ['reserve', 'src/a.ts'], as('alice'))).exitCode).toBe(0);
    chmodSync(repo.dir, 0o755);
    chmodSync(join(repo.dir, '.git'), 0o755);
    chmodSync(dirname(repo.db), 0o700);
    // nobody may not reach this clone (a 0700 parent): it runs a copy it can reach.
    const reachable = icBinFor(65534);
    const asNobody = (args: string[]) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, reachable.bin, 'coord', ...args], {
        cwd: repo.dir,
        env: { PATH: process.env.PATH, IC_OWNER: 'bob', HOME: tmpdir() },
        encoding: 'utf8',
      });
    try {
      for (const args of [['check', 'src/a.ts'], ['list'], ['reserve', 'src/a.ts']]) {
        const result = asNobody(args);
        expectClean({ exitCode: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, json: JSON.parse(result.stdout) }, 69, 'DB_UNAVAILABLE');
      }
    } finally {
      reachable.cleanup();
    }
  });

  // The git guard as another user: a real `git commit` by a user who cannot read the database.
  it.skipIf(process.getuid?.() !== 0)('the git guard never treats an unreadable database as "nothing held": it warns, and refuses when closed', async () => {
    writeFileSync(join(repo.dir, 'a.ts'), 'a');
    // The installed hook names the ic that installed it: one nobody can reach (a copy when the clone is private).
    const reachable = icBinFor(65534);
    cleanups.push(reachable.cleanup);
    expect((await runBin(reachable.bin, ['coord', 'install', '--git'], { cwd: repo.dir })).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'a.ts'], as('alice'))).exitCode).toBe(0);
    execFileSync('chown', ['-R', '65534:65534', repo.dir]);
    execFileSync('chown', ['-R', '0:0', dirname(repo.db)]);
    chmodSync(dirname(repo.db), 0o700);
    const asNobody = (args: string[], env: Record<string, string> = {}) =>
      spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'git', ...args], {
        cwd: repo.dir,
        env: { PATH: process.env.PATH, HOME: tmpdir(), IC_OWNER: 'bob', GIT_CONFIG_NOSYSTEM: '1', ...env },
        encoding: 'utf8',
      });
    expect(asNobody(['add', 'a.ts']).status).toBe(0);
    const open = asNobody(['-c', 'user.name=Bob', '-c', 'user.email=bob@example.com', '-c', 'safe.directory=*', 'commit', '-qm', 'open']);
    expect(open.status).toBe(0);
    expect(open.stderr).toMatch(/could not check|cannot|DB_UNAVAILABLE/i);
    writeFileSync(join(repo.dir, 'a.ts'), 'b');
    expect(asNobody(['add', 'a.ts']).status).toBe(0);
    const closed = asNobody(['-c', 'user.name=Bob', '-c', 'user.email=bob@example.com', '-c', 'safe.directory=*', 'commit', '-qm', 'closed'], { IC_HOOK_FAIL: 'closed' });
    expect(closed.status).not.toBe(0);
    expect(closed.stderr).toMatch(/IC_HOOK_FAIL=closed|refus/i);
    expect(execFileSync('git', ['-C', repo.dir, '-c', 'safe.directory=*', 'log', '--format=%s'], { encoding: 'utf8' }).trim().split('\n')).toEqual(['open']);
  });

  // Root may mount: a tiny tmpfs filled to the brim is a full disk.
  it.skipIf(process.getuid?.() !== 0)('disk full says "disk full", keeps the database, and doctor never advises dropping locks', async () => {
    const mount = mkdtempSync(join(tmpdir(), 'ic-full-'));
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount]).status !== 0) return;
    try {
      const full = makeTempRepoIn(mount);
      expect((await coord(full, ['reserve', 'kept.ts'], as('alice'))).exitCode).toBe(0);
      const before = (await coord(full, ['list'])).json.locks;
      spawnSync('dd', ['if=/dev/zero', `of=${join(mount, 'filler')}`, 'bs=4k', 'count=1000']);
      const reasons = Array.from({ length: 40 }, (_, i) => `f${i}.ts`);
      const result = await coord(full, ['reserve', ...reasons, '--reason', 'x'.repeat(2000)], as('bob'));
      expectClean(result, 69, 'DB_UNAVAILABLE');
      expect(result.json.error.message).toMatch(/disk full/);
      const doctor = await ic(full, ['doctor']);
      const advice = doctor.json.checks
        .filter((check: any) => !check.ok)
        .map((check: any) => check.fix)
        .join(' ');
      expect(advice).toMatch(/free some disk space/);
      expect(advice).not.toMatch(/mv |move it aside and run/);
      rmSync(join(mount, 'filler'));
      expect((await coord(full, ['list'])).json.locks).toEqual(before);
    } finally {
      spawnSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });
});

function makeTempRepoIn(dir: string): TempRepo {
  execFileSync('git', ['init', '-q', dir]);
  return { dir, db: join(dir, '.git', 'ic', 'ic.db'), cleanup: () => {} };
}
