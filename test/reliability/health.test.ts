// Database health: every broken or unusual database gives a clear DB_UNAVAILABLE (exit 69) with what to do,
// or recovers; never INTERNAL (70), never silent data loss. `ic doctor` reports each case.
import { LATEST_VERSION } from '../../src/store/migrations';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { ic, makeTempRepo, REPO_ROOT, type TempRepo } from '../support/cli';
import { detectFileSystem, isNetworkFileSystem, knownLocalFileSystem, mountFor, parseMountinfo } from '../../src/store/filesystem';

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-health-');
});
afterEach(() => repo.cleanup());

const as = (owner: string, extra: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...extra } });
const expectUnavailable = (result: { exitCode: number; json: any }, message: RegExp) => {
  expect(result.exitCode, JSON.stringify(result.json)).toBe(69);
  expect(result.json.error.code).toBe('DB_UNAVAILABLE');
  expect(result.json.error.message).toMatch(message);
};
const canRun = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

// A mountinfo in proc(5) format that puts `dir` on a file system of `type`.
function mountinfoWith(dir: string, type: string): string {
  // Inside the repository's .git, so the repository's cleanup deletes it (no /tmp/ic-health-*-mountinfo left behind).
  const file = join(repo.dir, '.git', 'test-mountinfo');
  const escaped = dir.replace(/ /g, '\\040');
  writeFileSync(file, [`27 1 254:0 / / rw,relatime - ext4 /dev/vda rw`, `99 27 0:50 / ${escaped} rw,relatime shared:1 - ${type} server:/export rw,vers=4.2`, ''].join('\n'));
  return file;
}

describe('file system detection', () => {
  it('parses mountinfo, picks the longest (last) mount point, and knows network types', () => {
    const mounts = parseMountinfo(
      [
        '27 1 254:0 / / rw - ext4 /dev/vda rw',
        '40 27 0:40 / /mnt/my\\040share rw - cifs //host/share rw',
        '41 27 0:41 / /mnt/nfs rw shared:5 master:2 - nfs4 host:/x rw',
        '42 41 0:42 / /mnt/nfs/local rw - tmpfs tmpfs rw',
        '43 27 0:43 / /home/me/remote rw - fuse.sshfs me@host: rw',
        'garbage line',
      ].join('\n'),
    );
    expect(mounts).toHaveLength(5);
    expect(mountFor(mounts, '/mnt/my share/proj/.ic')?.fsType).toBe('cifs');
    expect(mountFor(mounts, '/mnt/nfs/proj')?.fsType).toBe('nfs4');
    expect(mountFor(mounts, '/mnt/nfs/local/proj')?.fsType).toBe('tmpfs');
    expect(mountFor(mounts, '/mnt/nfsx/proj')?.fsType).toBe('ext4');
    expect(mountFor(mounts, '/home/me/remote/p')?.fsType).toBe('fuse.sshfs');
    for (const type of ['nfs', 'nfs4', 'cifs', 'smb3', 'smbfs', '9p', 'fuse.sshfs', 'afs', 'ceph', 'glusterfs', 'vboxsf']) expect(isNetworkFileSystem(type), type).toBe(true);
    for (const type of ['ext4', 'xfs', 'btrfs', 'tmpfs', 'overlay', 'apfs', 'zfs', 'fuse.portal']) expect(isNetworkFileSystem(type), type).toBe(false);
  });

  it('statfs answers "local" only where the mount table agrees; IC_MOUNTINFO and a missing directory leave it to the mount table', () => {
    if (knownLocalFileSystem(repo.dir, {})) expect(detectFileSystem(repo.dir, {}).network).toBe(false);
    expect(knownLocalFileSystem(repo.dir, { IC_MOUNTINFO: mountinfoWith(repo.dir, 'nfs4') })).toBe(false);
    expect(knownLocalFileSystem(join(repo.dir, 'no-such-dir'), {})).toBe(false);
  });
});

describe('a database on a network file system', () => {
  it('is refused for writes with the reason, creates nothing, still reads, and can be allowed', async () => {
    const env = { IC_MOUNTINFO: mountinfoWith(repo.dir, 'nfs4') };
    const refused = await ic(repo, ['coord', 'reserve', 'src/a.ts'], as('alice', env));
    expectUnavailable(refused, /network file system \(nfs4 at .*WAL.*shared memory.*IC_ALLOW_NETWORK_FS=1/);
    expect(existsSync(join(repo.dir, '.ic'))).toBe(false);
    expect((await ic(repo, ['coord', 'list'], { env })).exitCode).toBe(0);
    const doctor = await ic(repo, ['doctor'], { env });
    expect(doctor.exitCode).toBe(69);
    expect(doctor.json.filesystem).toMatchObject({ type: 'nfs4', network: true });
    expect(doctor.json.checks.find((c: any) => c.name === 'filesystem')).toMatchObject({ ok: false, fix: expect.stringMatching(/IC_DB/) });
    const allowed = await ic(repo, ['coord', 'reserve', 'src/a.ts'], as('alice', { ...env, IC_ALLOW_NETWORK_FS: '1' }));
    expect(allowed.exitCode).toBe(0);
  });

  it('is judged by the database directory, not the working directory', async () => {
    mkdirSync(join(repo.dir, 'elsewhere'));
    const env = { IC_MOUNTINFO: mountinfoWith(join(repo.dir, 'elsewhere'), 'cifs') };
    expect((await ic(repo, ['coord', 'reserve', 'src/a.ts'], as('alice', env))).exitCode).toBe(0);
    const remote = { ...env, IC_DB: join(repo.dir, 'elsewhere', 'sub', 'ic.db') };
    expectUnavailable(await ic(repo, ['coord', 'reserve', 'src/a.ts'], as('alice', remote)), /cifs/);
  });
});

describe('broken files', () => {
  it('a file that is not SQLite: 69 with what to do, file untouched, doctor says the same', async () => {
    mkdirSync(dirname(repo.db), { recursive: true });
    writeFileSync(repo.db, 'these are my notes, not a database\n'.repeat(200));
    const before = readFileSync(repo.db);
    expectUnavailable(await ic(repo, ['coord', 'reserve', 'a'], as('alice')), /not a (SQLite )?database.*mv .*ic init/);
    expectUnavailable(await ic(repo, ['coord', 'list'], as('alice')), /not a (SQLite )?database/);
    expect(readFileSync(repo.db).equals(before)).toBe(true);
    const doctor = await ic(repo, ['doctor']);
    expect(doctor.exitCode).toBe(69);
    expect(doctor.json).toMatchObject({ ok: false, healthy: false, status: 'unusable', error: { code: 'DB_UNAVAILABLE' } });
    expect(doctor.json.checks.find((c: any) => !c.ok)).toMatchObject({ name: 'format', fix: expect.stringMatching(/mv /) });
  });

  it('a truncated or corrupted database: 69 (never 70), not overwritten', async () => {
    await ic(repo, ['coord', 'reserve', ...Array.from({ length: 120 }, (_, i) => `f${i}.ts`), '--reason', 'x'.repeat(500)], as('alice'));
    expect((await ic(repo, ['doctor'])).exitCode).toBe(0);
    const size = statSync(repo.db).size;
    expect(size).toBeGreaterThan(16_384);
    const damaged = [
      { name: 'truncated', damage: (p: string) => truncateSync(p, Math.floor(size / 2 / 4096) * 4096) },
      { name: 'header only', damage: (p: string) => truncateSync(p, 60) },
      {
        name: 'pages overwritten',
        damage: (p: string) => {
          const bytes = readFileSync(p);
          bytes.fill(0xa5, 4096, size);
          writeFileSync(p, bytes);
        },
      },
    ];
    for (const { name, damage } of damaged) {
      const copy = join(repo.dir, `${name.replace(/ /g, '-')}.db`);
      copyFileSync(repo.db, copy);
      damage(copy);
      const before = readFileSync(copy);
      for (const args of [
        ['coord', 'reserve', 'new.ts'],
        ['coord', 'list'],
        ['coord', 'check', 'f1.ts'],
      ]) {
        const result = await ic(repo, args, as('bob', { IC_DB: copy }));
        expect(result.exitCode, `${name}: ${args.join(' ')}: ${result.stdout}${result.stderr}`).toBe(69);
        expect(result.json.error.message, name).toMatch(/malformed|not a database|corrupt/i);
      }
      expect(readFileSync(copy).equals(before), name).toBe(true);
      const doctor = await ic(repo, ['doctor'], { env: { IC_DB: copy } });
      expect(doctor.exitCode, name).toBe(69);
      expect(doctor.json.checks.find((c: any) => !c.ok).fix, name).toMatch(/\.recover|ic init/);
    }
  }, 60_000);

  it('an empty (zero-byte) file is a valid empty database: the first write sets it up', async () => {
    mkdirSync(dirname(repo.db), { recursive: true });
    writeFileSync(repo.db, '');
    expect((await ic(repo, ['coord', 'reserve', 'a'], as('alice'))).exitCode).toBe(0);
  });

  it('a database from a newer ic is refused, and doctor says to upgrade', async () => {
    await ic(repo, ['init']);
    const db = new Database(repo.db);
    db.pragma('user_version = 99');
    db.close();
    expectUnavailable(await ic(repo, ['coord', 'reserve', 'a'], as('alice')), /newer.*upgrade ic/);
    const doctor = await ic(repo, ['doctor']);
    expect(doctor.exitCode).toBe(69);
    expect(doctor.json.checks.find((c: any) => c.name === 'schema')).toMatchObject({ ok: false, fix: expect.stringMatching(/upgrade/) });
  });
});

describe('directories', () => {
  it('an explicit database in a missing directory: refused (69), nothing created; the default directory is made on first write', async () => {
    const db = join(repo.dir, 'deep', 'er', 'ic.db');
    expectUnavailable(await ic(repo, ['coord', 'list'], { env: { IC_DB: db } }), /no database at .*named by --db or IC_DB/); // a named path is never read as empty
    expect(existsSync(join(repo.dir, 'deep'))).toBe(false);
    expect((await ic(repo, ['doctor'], { env: { IC_DB: db } })).json).toMatchObject({ ok: true, db: { exists: false } });
    expectUnavailable(await ic(repo, ['coord', 'reserve', 'a'], as('alice', { IC_DB: db })), /does not exist.*never creates/);
    expect(existsSync(join(repo.dir, 'deep'))).toBe(false);
    expect(existsSync(dirname(repo.db))).toBe(false);
    expect((await ic(repo, ['coord', 'reserve', 'a'], as('alice'))).exitCode).toBe(0);
    expect(existsSync(repo.db)).toBe(true);
  });

  it('a path through a file: 69 with what to do', async () => {
    writeFileSync(join(repo.dir, 'plain'), 'x');
    expectUnavailable(await ic(repo, ['coord', 'reserve', 'a'], as('alice', { IC_DB: join(repo.dir, 'plain', 'ic.db') })), /not a directory.*IC_DB/);
  });

  // Tests run as root, where chmod stops nothing: an immutable directory (chattr +i) is read-only even for root.
  it.skipIf(!canRun('chattr', ['--help']) && !canRun('lsattr', ['-d', '/']))('a read-only (immutable) directory: 69 for writes, doctor says so', async () => {
    const dir = join(repo.dir, 'frozen');
    mkdirSync(dir);
    const withDb = join(repo.dir, 'frozen-db');
    mkdirSync(withDb);
    await ic(repo, ['coord', 'reserve', 'kept.ts'], as('alice', { IC_DB: join(withDb, 'ic.db') }));
    if (spawnSync('chattr', ['+i', dir, withDb]).status !== 0) return; // not supported on this file system
    try {
      expectUnavailable(await ic(repo, ['coord', 'reserve', 'a'], as('alice', { IC_DB: join(dir, 'ic.db') })), /unable to open.*writable/);
      expectUnavailable(await ic(repo, ['coord', 'reserve', 'b'], as('alice', { IC_DB: join(withDb, 'ic.db') })), /unable to open|readonly|read-only/i);
      const doctor = await ic(repo, ['doctor'], { env: { IC_DB: join(withDb, 'ic.db') } });
      expect(doctor.exitCode).toBe(69);
      expect(doctor.json.checks.find((c: any) => c.name === 'writable')).toMatchObject({ ok: false });
    } finally {
      spawnSync('chattr', ['-i', dir, withDb]);
    }
    const list = await ic(repo, ['coord', 'list'], { env: { IC_DB: join(withDb, 'ic.db') } });
    expect(list.json.locks.map((l: any) => l.pattern)).toEqual(['kept.ts']);
  });

  // A read-only mount (EROFS) where the sandbox allows mounting a tmpfs.
  it.skipIf(process.getuid?.() !== 0 || !canRun('mount', ['--version']))('a database on a read-only mount: 69, data intact', async () => {
    const mnt = join(repo.dir, 'mnt');
    mkdirSync(mnt);
    if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mnt]).status !== 0) return;
    try {
      const db = join(mnt, 'ic.db');
      expect((await ic(repo, ['coord', 'reserve', 'kept.ts'], as('alice', { IC_DB: db }))).exitCode).toBe(0);
      expect(spawnSync('mount', ['-o', 'remount,ro', mnt]).status).toBe(0);
      const refused = await ic(repo, ['coord', 'reserve', 'b'], as('alice', { IC_DB: db }));
      expect(refused.exitCode, refused.stdout).toBe(69);
      const doctor = await ic(repo, ['doctor'], { env: { IC_DB: db } });
      expect(doctor.exitCode).toBe(69);
      expect(doctor.json.checks.find((c: any) => c.name === 'writable')).toMatchObject({ ok: false, detail: expect.stringMatching(/read-only/) });
    } finally {
      spawnSync('umount', [mnt]);
    }
  });
});

// A helper process that opens the database, does `work` inside a transaction it never commits (or commits
// without a checkpoint), says "ready" and waits to be SIGKILLed: what a crashed writer leaves behind.
async function leaveKilled(db: string, work: string): Promise<void> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(${JSON.stringify(db)});
    ${work}
    process.stdout.write('ready\\n');
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`helper exited ${code}`)));
  });
  const gone = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

const INSERT_LOCKS = `
  const insert = db.prepare("INSERT INTO locks (seq, id, token, type, scope, pattern, base, owner, mode, reason, created_at, expires_at, ttl_ms) VALUES (?, ?, ?, 'file', 's', ?, '', 'ghost', 'exclusive', ?, 0, 9e12, 1)");
  for (let i = 0; i < 3000; i++) insert.run(-1 - i, 'g' + String(i).padStart(7, '0'), 1e6 + i, 'ghost/' + i, 'x'.repeat(200));`;

describe('a database left by a killed process', () => {
  it('mid-transaction in WAL mode: the uncommitted work is gone, the committed work stays, ic carries on', async () => {
    await ic(repo, ['coord', 'reserve', 'kept.ts'], as('alice'));
    await leaveKilled(repo.db, `db.pragma('cache_size = 2'); db.exec('BEGIN IMMEDIATE'); ${INSERT_LOCKS}`);
    expect(existsSync(`${repo.db}-wal`)).toBe(true);
    expect(statSync(`${repo.db}-wal`).size).toBeGreaterThan(100_000); // the spilled, uncommitted pages
    const list = await ic(repo, ['coord', 'list']);
    expect(list.exitCode).toBe(0);
    expect(list.json.locks.map((l: any) => l.pattern)).toEqual(['kept.ts']);
    expect((await ic(repo, ['coord', 'reserve', 'next.ts'], as('bob'))).exitCode).toBe(0);
    expect((await ic(repo, ['doctor'])).json).toMatchObject({ healthy: true, integrity: 'ok', counts: { locks: { total: 2 } } });
  });

  it('committed but not checkpointed: nothing is lost', async () => {
    await ic(repo, ['coord', 'reserve', 'kept.ts'], as('alice'));
    await leaveKilled(repo.db, `db.pragma('wal_autocheckpoint = 0'); db.transaction(() => { ${INSERT_LOCKS} })();`);
    expect(statSync(`${repo.db}-wal`).size).toBeGreaterThan(100_000);
    const list = await ic(repo, ['coord', 'list', '--all-scopes']);
    expect(list.exitCode).toBe(0);
    expect(list.json.locks).toHaveLength(3001);
    expect((await ic(repo, ['coord', 'reserve', 'next.ts'], as('bob'))).json.locks[0].token).toBe(2); // the counter is ic's, untouched
  });

  it('mid-transaction in rollback-journal mode (a hot journal): rolled back, then switched to WAL', async () => {
    await ic(repo, ['coord', 'reserve', 'kept.ts'], as('alice'));
    const db = new Database(repo.db);
    db.pragma('journal_mode = DELETE');
    db.close();
    await leaveKilled(repo.db, `db.pragma('cache_size = 2'); db.exec('BEGIN IMMEDIATE'); ${INSERT_LOCKS}`);
    expect(existsSync(`${repo.db}-journal`)).toBe(true); // hot: the main file already holds uncommitted pages
    const doctorBefore = await ic(repo, ['doctor']);
    expect(doctorBefore.json.integrity).toBe('ok'); // opening rolls the hot journal back
    expect(doctorBefore.exitCode).toBe(1); // usable, but not in WAL mode
    expect(doctorBefore.json.checks.find((c: any) => c.name === 'journal_mode')).toMatchObject({ ok: false, fix: expect.stringMatching(/ic init/) });
    const list = await ic(repo, ['coord', 'list']);
    expect(list.json.locks.map((l: any) => l.pattern)).toEqual(['kept.ts']);
    expect((await ic(repo, ['coord', 'reserve', 'next.ts'], as('bob'))).exitCode).toBe(0);
    expect((await ic(repo, ['doctor'])).json).toMatchObject({ healthy: true, journal_mode: 'wal' });
  });
});

describe('ic doctor', () => {
  it('reports schema, journal mode, integrity, file system and counts, with exit 0 when healthy', async () => {
    await ic(repo, ['coord', 'reserve', 'a', 'b', '--ttl', '1m'], as('alice'));
    const held = await ic(repo, ['coord', 'reserve', 'c'], as('bob'));
    await ic(repo, ['coord', 'release', held.json.locks[0].id], as('bob'));
    const later = new Date(Date.now() + 5 * 60_000).toISOString();
    const doctor = await ic(repo, ['doctor'], { env: { IC_NOW: later } });
    expect(doctor.exitCode).toBe(0);
    expect(doctor.json).toMatchObject({
      ok: true,
      healthy: true,
      status: 'healthy',
      db: { path: repo.db, source: 'git', exists: true },
      schema_version: LATEST_VERSION,
      latest_schema_version: LATEST_VERSION,
      journal_mode: 'wal',
      integrity: 'ok',
      filesystem: { network: false },
      counts: { locks: { active: 0, lapsed: 2, released: 1, total: 3 }, events: 4 },
    });
    expect(doctor.json.checks.map((c: any) => c.name)).toEqual(['location', 'filesystem', 'writable', 'disk_space', 'integrity', 'schema', 'journal_mode', 'clock', 'locks']);
    for (const check of doctor.json.checks) expect(check).toMatchObject({ ok: true, detail: expect.any(String) });
    expect(doctor.json.checks.at(-1).detail).toMatch(/2 lapsed.*sweep/);
  });
});
