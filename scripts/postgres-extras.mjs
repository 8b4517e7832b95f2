// What a throwaway server of scripts/postgres-server.mjs can be given for the bench: TLS with a self-signed
// certificate for `localhost` (openssl), and a PgBouncer in transaction mode in front of it. The same setups as
// test/postgres/tls.test.ts and test/postgres/pgbouncer.test.ts.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serverBinDir, SUPERUSER_PASSWORD } from './postgres-server.mjs';

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));
const root = () => process.getuid?.() === 0;

function postgresOwner() {
  const owner = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'))
    ?.split(':');
  return owner ? { uid: Number(owner[2]), gid: Number(owner[3]) } : undefined;
}

// SQL as the superuser over the server's unix socket (trusted).
export function psql(server, ...statements) {
  execFileSync(join(serverBinDir(), 'psql'), ['-h', server.dir, '-p', String(server.port), '-U', 'postgres', '-d', 'postgres', '-qAt', ...statements.flatMap((sql) => ['-c', sql])], {
    stdio: 'ignore',
  });
}

// Turns TLS on; returns the URL by the name `localhost` with verify-full against the certificate, and a cleanup.
export function enableTls(server) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pg-tls-')));
  const cert = join(dir, 'server.crt');
  const key = join(dir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], {
    stdio: 'ignore',
  });
  const owner = postgresOwner();
  for (const [from, to] of [
    [cert, 'server.crt'],
    [key, 'server.key'],
  ]) {
    const target = join(server.dir, 'data', to);
    copyFileSync(from, target);
    chmodSync(target, 0o600);
    if (root() && owner) chownSync(target, owner.uid, owner.gid);
  }
  psql(server, 'ALTER SYSTEM SET ssl = on', 'SELECT pg_reload_conf()');
  const url = `postgresql://postgres:${SUPERUSER_PASSWORD}@localhost:${server.port}/postgres?sslmode=verify-full&sslrootcert=${encodeURIComponent(cert)}`;
  return { url, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

async function freePort() {
  return await new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

// A PgBouncer in transaction mode in front of the server (undefined when pgbouncer is not installed). It drops
// the startup `options`, so ic's schema comes from the database's own search_path (set here).
export async function startPgBouncer(server) {
  if (!PGBOUNCER) return undefined;
  psql(server, 'ALTER DATABASE postgres SET search_path = ic');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pgbouncer-')));
  const port = await freePort();
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${server.dir} port=${server.port} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'ignore_startup_parameters = options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer will not run as root: as root it runs as the cluster's owner, as the server does.
  const owner = postgresOwner();
  if (root() && owner) chownSync(dir, owner.uid, owner.gid);
  const [command, args] = root() ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, join(dir, 'pgbouncer.ini')]] : [PGBOUNCER, [join(dir, 'pgbouncer.ini')]];
  const bouncer = spawn(command, args, { stdio: 'ignore' });
  for (let tries = 0; tries < 100 && !existsSync(join(dir, 'pgbouncer.pid')); tries++) await new Promise((resolve) => setTimeout(resolve, 100));
  return {
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        process.kill(Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8')), 'SIGTERM');
      } catch {
        // gone already
      }
      bouncer.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
