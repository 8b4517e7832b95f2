#!/usr/bin/env node
// A throwaway PostgreSQL cluster for tests (issue #24): Debian's server binaries, a data directory and a unix
// socket in one temp directory, TCP on 127.0.0.1 only. initdb and postgres refuse to run as root, so as root
// the cluster belongs to the `postgres` user and its programs run through runuser.
//
//   node scripts/postgres-server.mjs start        prints {"url":…,"tcpUrl":…,"dir":…} and leaves the server running
//   node scripts/postgres-server.mjs stop DIR     stops it and removes DIR
//   node scripts/postgres-server.mjs run -- CMD…  runs CMD with IC_TEST_PG_URL set, then stops the server (even if CMD fails)
//   node scripts/postgres-server.mjs watch PID DIR  stops the server in DIR once process PID is gone (see startPostgres)
//
// The test suite's globalSetup (test/postgres/global-setup.ts) imports startPostgres/stopPostgres.
import { spawnSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The superuser's password for TCP connections (the unix socket trusts local users): tests use it to check
// that a password never reaches a message.
export const SUPERUSER_PASSWORD = 'throwaway-superuser-secret';

// Debian installs each major version's server programs under /usr/lib/postgresql/<major>/bin; PG_BIN overrides.
export function serverBinDir() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb'))) : [];
  if (majors.length === 0) throw new Error('no PostgreSQL server found under /usr/lib/postgresql (install Debian\'s "postgresql" package, or set PG_BIN)');
  majors.sort((a, b) => Number(b) - Number(a));
  return join(root, majors[0], 'bin');
}

async function freePort() {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

// Runs a server program as the cluster's owner: `postgres` when we are root, else ourselves.
function runAsOwner(program, args, options = {}) {
  const [command, argv] = isRoot() ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  const result = spawnSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000, ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

function ownerIds() {
  if (!isRoot()) return { uid: process.getuid(), gid: process.getgid() };
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('running as root needs the `postgres` user (Debian\'s "postgresql" package creates it)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

// Connection URLs: over the unix socket (trusted, no password) and over TCP with the superuser's password.
export function urlsFor(dir, port, database = 'postgres') {
  return {
    url: `postgresql:///${database}?host=${encodeURIComponent(dir)}&port=${port}&user=postgres`,
    tcpUrl: `postgresql://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${port}/${database}`,
  };
}

// A detached watchdog that stops the cluster once `pid` (the test runner) has gone, however it went (SIGKILL
// included, when no exit handler runs). It ends by itself as soon as the directory is gone, i.e. right after
// a normal stop.
function watchOwner(pid, dir) {
  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, 'watch', String(pid), dir], { detached: true, stdio: 'ignore' });
  child.unref();
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

async function watch(pid, dir) {
  while (existsSync(dir) && isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 500));
  if (existsSync(dir)) stopPostgres(dir);
}

// `ownerPid`: the process whose end must stop the cluster (default: this one; null: none, stop it yourself).
export async function startPostgres({ ownerPid = process.pid } = {}) {
  const bin = serverBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'ic-pg-'));
  try {
    chmodSync(dir, 0o755); // the owner (postgres) must reach it; mkdtemp makes it 0700
    const { uid, gid } = ownerIds();
    chownSync(dir, uid, gid);
    if (ownerPid !== null) watchOwner(ownerPid, dir);
    const data = join(dir, 'data');
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${SUPERUSER_PASSWORD}\n`, { mode: 0o600 });
    chownSync(pwfile, uid, gid);
    runAsOwner(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--pwfile', pwfile, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    rmSync(pwfile);
    const port = await freePort();
    // fsync off: a throwaway cluster need not survive a power cut, and every commit of the tests gets cheaper.
    const options = `-p ${port} -k '${dir}' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100`;
    runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '30', '-o', options, 'start']);
    return { dir, port, ...urlsFor(dir, port) };
  } catch (error) {
    stopPostgres(dir);
    throw error;
  }
}

// Restarts the cluster in DIR (fast: open sessions are ended, their transactions rolled back), with the
// options it was started with; for tests of clients across a server restart.
export function restartPostgres(dir) {
  runAsOwner(join(serverBinDir(), 'pg_ctl'), ['-D', join(dir, 'data'), '-l', join(dir, 'server.log'), '-m', 'fast', '-w', '-t', '30', 'restart']);
}

// Stops the cluster in DIR (immediately: nothing in it is kept) and removes DIR. Safe to call twice, or on a
// cluster that never started.
export function stopPostgres(dir) {
  const data = join(dir, 'data');
  if (existsSync(join(data, 'postmaster.pid'))) {
    try {
      runAsOwner(join(serverBinDir(), 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']);
    } catch (error) {
      process.stderr.write(`warning: could not stop the PostgreSQL server in ${dir}: ${error.message}\n`);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === 'start') {
    // The server outlives this command on purpose, with no watchdog: `stop DIR` stops it.
    process.stdout.write(`${JSON.stringify(await startPostgres({ ownerPid: null }))}\n`);
    return 0;
  }
  if (command === 'watch' && rest.length === 2) {
    await watch(Number(rest[0]), rest[1]);
    return 0;
  }
  if (command === 'stop' && rest.length === 1) {
    stopPostgres(rest[0]);
    return 0;
  }
  if (command === 'run' && rest[0] === '--' && rest.length > 1) {
    const server = await startPostgres();
    const stop = () => stopPostgres(server.dir);
    process.once('exit', stop);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => process.exit(130));
    const child = spawn(rest[1], rest.slice(2), { stdio: 'inherit', env: { ...process.env, IC_TEST_PG_URL: server.url, IC_TEST_PG_TCP_URL: server.tcpUrl } });
    return await new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1))));
  }
  process.stderr.write(`usage: postgres-server.mjs start | stop DIR | run -- CMD [ARGS…] | watch PID DIR\n`);
  return 64;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}
