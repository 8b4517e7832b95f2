// TLS by host name, with nothing compiled (issue #38, item 2): a throwaway server of this file's own with a
// self-signed certificate for `localhost` (openssl), reached by name. sslmode keeps libpq's meaning:
// verify-full checks the chain and the name, require encrypts without checking (pg 8 alone would refuse the
// self-signed certificate), prefer uses TLS when the server has it.
import { execFileSync } from 'node:child_process';
import { chownSync, copyFileSync, chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { withConnection } from './support';
// @ts-expect-error -- a plain .mjs script without type declarations
import { startPostgres, stopPostgres } from '../../scripts/postgres-server.mjs';

let server: { dir: string; port: number; url: string; tcpUrl: string };
let certDir: string;
let rootCert: string;

beforeAll(async () => {
  server = await startPostgres();
  certDir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pg-tls-')));
  rootCert = join(certDir, 'server.crt');
  const key = join(certDir, 'server.key');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', rootCert, '-days', '2', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost'], {
    stdio: 'ignore',
  });
  // The server reads its certificate and key from its data directory, the key readable by its owner only.
  const data = join(server.dir, 'data');
  const owner = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((line) => line.startsWith('postgres:'))
    ?.split(':');
  for (const [from, to] of [
    [rootCert, 'server.crt'],
    [key, 'server.key'],
  ] as const) {
    copyFileSync(from, join(data, to));
    chmodSync(join(data, to), 0o600);
    if (process.getuid?.() === 0 && owner) chownSync(join(data, to), Number(owner[2]), Number(owner[3]));
  }
  await withConnection(server.url, async (db) => {
    await db.exec('ALTER SYSTEM SET ssl = on');
    await db.exec('SELECT pg_reload_conf()');
  });
}, 120_000);

afterAll(() => {
  if (server) stopPostgres(server.dir);
  if (certDir) rmSync(certDir, { recursive: true, force: true });
});

// The server over TCP by the name `localhost`, with the superuser's password and these parameters.
function byName(parameters: string): string {
  return `${server.tcpUrl.replace('@127.0.0.1:', '@localhost:')}?${parameters}`;
}

function repoWithCommit(): TempRepo {
  const repo = makeTempRepo('ic-pg-tls-');
  execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', `first commit of ${repo.dir}`]);
  return repo;
}

function connectionCheck(json: { checks: { name: string; ok: boolean; detail: string }[] }) {
  return json.checks.find((check) => check.name === 'connection')!;
}

describe('TLS with a self-signed certificate, by host name', () => {
  it('verify-full with the certificate as sslrootcert: every command works, and doctor says the connection is encrypted', async () => {
    const repo = repoWithCommit();
    try {
      const env = { IC_DB: byName(`sslmode=verify-full&sslrootcert=${encodeURIComponent(rootCert)}`) };
      expect((await ic(repo, ['init'], { env })).exitCode).toBe(0);
      const reserved = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice'], { env });
      expect(reserved.exitCode, reserved.stderr).toBe(0);
      const denied = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'bob'], { env });
      expect(denied.json.error.code).toBe('CONFLICT');
      const doctor = await ic(repo, ['doctor'], { env });
      expect(connectionCheck(doctor.json)).toMatchObject({ ok: true, detail: expect.stringContaining('encrypted (TLS)') });
      expect(doctor.stdout + doctor.stderr).not.toContain('throwaway-superuser-secret');
    } finally {
      repo.cleanup();
    }
  });

  it('require encrypts without checking the certificate (libpq), prefer uses TLS when the server has it', async () => {
    const repo = repoWithCommit();
    try {
      for (const mode of ['require', 'prefer']) {
        const doctor = await ic(repo, ['doctor'], { env: { IC_DB: byName(`sslmode=${mode}`) } });
        expect(connectionCheck(doctor.json), mode).toMatchObject({ ok: true, detail: expect.stringContaining('encrypted (TLS)') });
      }
      const plain = await ic(repo, ['doctor'], { env: { IC_DB: byName('sslmode=disable') } });
      expect(connectionCheck(plain.json)).toMatchObject({ ok: true, detail: expect.stringContaining('not encrypted') });
    } finally {
      repo.cleanup();
    }
  });

  it('verify-full refuses a certificate that does not name the host, and asks for a root certificate when there is none: 69', async () => {
    const repo = repoWithCommit();
    try {
      const byAddress = server.tcpUrl + `?sslmode=verify-full&sslrootcert=${encodeURIComponent(rootCert)}`; // 127.0.0.1: not in the certificate
      const wrongName = await coord(repo, ['list'], { env: { IC_DB: byAddress } });
      expect(wrongName.exitCode, wrongName.stderr).toBe(69);
      const noRoot = await coord(repo, ['list'], { env: { IC_DB: byName('sslmode=verify-full'), HOME: certDir } });
      expect(noRoot.exitCode).toBe(69);
      expect(noRoot.json.error.message).toContain('sslrootcert');
    } finally {
      repo.cleanup();
    }
  });
});
