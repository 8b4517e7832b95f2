// The two drivers (docs/postgres.md, "Drivers"): ic's built-in wire client serves a server on this machine
// with no native package at all; libpq serves the rest, and IC_PG_DRIVER overrides the choice. The rest of
// the suite runs on the built-in driver, and its connection, CLI and restart files again on libpq
// (vitest.config.mts, project "postgres-libpq").
import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { connect, freshDatabaseUrl, serverTcpUrl, serverUrl, withConnection } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repoWithCommit(): TempRepo {
  const repo = makeTempRepo('ic-pg-drivers-');
  execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', `first commit of ${repo.dir}`]);
  cleanups.push(repo.cleanup);
  return repo;
}

// No native driver anywhere this process could find one: IC_LIBPQ_DIR names a directory without it.
const NO_LIBPQ = { IC_LIBPQ_DIR: '/nonexistent/libpq', IC_PG_DRIVER: undefined };

describe('the built-in driver', () => {
  it('serves a local server over its unix socket and over loopback TCP with a password, without libpq', async () => {
    const repo = repoWithCommit();
    const socketDb = freshDatabaseUrl();
    const granted = await coord(repo, ['reserve', 'src/**', '--owner', 'alice'], { env: { IC_DB: socketDb, ...NO_LIBPQ } });
    expect(granted.exitCode).toBe(0);
    // The same database over TCP (SCRAM-SHA-256): bob is refused alice's files.
    const tcpDb = socketDb.replace(/^postgresql:\/\/\/([^?]+)\?.*$/, (_all, name: string) => serverTcpUrl().replace(/\/[^/?]+$/, `/${name}`));
    expect(tcpDb).toMatch(/^postgresql:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/ic_/);
    const refused = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'bob'], { env: { IC_DB: tcpDb, ...NO_LIBPQ } });
    expect(refused.exitCode).toBe(1);
    expect(JSON.parse(refused.stdout).error.code).toBe('CONFLICT');
    const doctor = await ic(repo, ['doctor', '--json'], { env: { IC_DB: tcpDb, ...NO_LIBPQ } });
    const connection = JSON.parse(doctor.stdout).checks.find((check: { name: string }) => check.name === 'connection');
    expect(connection.detail).toContain("ic's built-in driver");
    expect(doctor.stdout + doctor.stderr).not.toContain('throwaway-superuser-secret');
  });

  it('waits for a lock the server holds past its quick polling, and is granted once it is released', async () => {
    const repo = repoWithCommit();
    const db = freshDatabaseUrl();
    expect((await coord(repo, ['reserve', 'docs/**', '--owner', 'alice'], { env: { IC_DB: db } })).exitCode).toBe(0);
    const holder = connect(db);
    try {
      // Every write takes ic's advisory lock shared (pg-connection.ts); held exclusively here, writers wait.
      holder.exec('BEGIN; SELECT pg_advisory_xact_lock(7130120725)');
      const started = Date.now();
      const waiting = coord(repo, ['reserve', 'src/**', '--owner', 'bob'], { env: { IC_DB: db } });
      await new Promise((resolve) => setTimeout(resolve, 400));
      holder.exec('COMMIT');
      const result = await waiting;
      expect(result.exitCode).toBe(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    } finally {
      holder.close();
    }
  });
});

describe('what a person is told', () => {
  it('a URL only libpq can serve, without libpq installed: 69, saying why this connection needs it', async () => {
    const repo = repoWithCommit();
    const url = `${serverTcpUrl().replace(/^(postgresql:\/\/)[^@]+@/, '$1postgres@')}?sslmode=require`;
    const result = await coord(repo, ['list'], { env: { IC_DB: url, ...NO_LIBPQ } });
    expect(result.exitCode).toBe(69);
    expect(result.json.error.message).toContain('this connection needs the native libpq driver (sslmode=require asks for TLS');
    expect(result.json.error.needs_libpq).toBe('sslmode=require asks for TLS');
  });

  it('a password file others may read is ignored, as libpq ignores it, and the refusal says so', async () => {
    const repo = repoWithCommit();
    const port = new URL(serverTcpUrl().replace(/^postgresql:/, 'http:')).port;
    const passfile = join(repo.dir, '.git', 'pgpass');
    writeFileSync(passfile, `127.0.0.1:${port}:*:postgres:throwaway-superuser-secret\n`, { mode: 0o644 });
    chmodSync(passfile, 0o644);
    const database = /^postgresql:\/\/\/([^?]+)/.exec(freshDatabaseUrl())![1]!;
    const url = `postgresql://postgres@127.0.0.1:${port}/${database}`;
    const open = await coord(repo, ['reserve', 'a.txt', '--owner', 'ana'], { env: { IC_DB: url, PGPASSFILE: passfile } });
    expect(open.exitCode).toBe(69);
    expect(open.json.error.message).toContain(`the password file ${passfile} was ignored: others may read it`);
    chmodSync(passfile, 0o600);
    const closed = await coord(repo, ['reserve', 'a.txt', '--owner', 'ana'], { env: { IC_DB: url, PGPASSFILE: passfile } });
    expect(closed.exitCode, closed.stderr).toBe(0);
  });
});

describe('IC_PG_DRIVER', () => {
  it('builtin for a connection only libpq makes is DB_UNAVAILABLE (69) saying why, with no password', async () => {
    const repo = repoWithCommit();
    const result = await coord(repo, ['list'], { env: { IC_DB: 'postgresql://ic:hunter2@db.invalid/ic', IC_PG_DRIVER: 'builtin' } });
    expect(result.exitCode).toBe(69);
    expect(JSON.parse(result.stdout).error.message).toContain('db.invalid is not this machine');
    expect(result.stdout + result.stderr).not.toContain('hunter2');
  });

  it('a value that is neither builtin, libpq nor auto is a usage error (64)', async () => {
    const repo = repoWithCommit();
    const result = await coord(repo, ['list'], { env: { IC_DB: serverUrl(), IC_PG_DRIVER: 'pg' } });
    expect(result.exitCode).toBe(64);
    expect(JSON.parse(result.stdout).error.message).toContain('IC_PG_DRIVER must be builtin, libpq or auto');
  });

  it('libpq when asked (found through IC_LIBPQ_DIR), the built-in driver otherwise', () => {
    withConnection(serverUrl(), (db) => expect(db.driver).toBe('builtin'), { env: { ...process.env, IC_PG_DRIVER: undefined } });
    withConnection(serverUrl(), (db) => expect(db.driver).toBe('libpq'), { env: { ...process.env, IC_PG_DRIVER: 'libpq' } });
  });
});
