// A connection URL and the PG* variables → node-postgres's settings, with libpq's meaning (driver/client-config.ts):
// sslmode as libpq reads it (pg 8 alone would read require as verify-full), the local socket and the
// operating system's user by default, and a missing root certificate said before any connection.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, connectPlan } from '../../src/store/postgres/driver/client-config';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function rootCert(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ic-pg-config-'));
  dirs.push(dir);
  const file = join(dir, 'root.crt');
  writeFileSync(file, '-----BEGIN CERTIFICATE-----\nnot checked here\n-----END CERTIFICATE-----\n');
  return file;
}

const plan = (url: string, env: NodeJS.ProcessEnv = {}) => connectPlan(url, env, 5_000);

describe('sslmode, as libpq reads it', () => {
  it('prefer (the default) tries TLS without checking the certificate, then plain text', () => {
    const { tls, config } = plan('postgres://u@db.example/ic');
    expect(tls).toBe('first');
    expect(config.ssl).toMatchObject({ rejectUnauthorized: false, servername: 'db.example', ca: [] }); // no CAs: nothing is checked
  });

  it('require encrypts without checking the certificate: not verify-full, as pg 8 alone would read it', () => {
    const { tls, config } = plan('postgres://u@db.example/ic?sslmode=require');
    expect(tls).toBe('only');
    expect(config.ssl).toMatchObject({ rejectUnauthorized: false });
  });

  it('require with a root certificate checks the chain, as verify-ca does', () => {
    const ca = rootCert();
    const { config } = plan(`postgres://u@db.example/ic?sslmode=require&sslrootcert=${encodeURIComponent(ca)}`);
    const ssl = config.ssl as Record<string, unknown>;
    expect(ssl.rejectUnauthorized).toBeUndefined();
    expect(String(ssl.ca)).toContain('not checked here');
    expect((ssl.checkServerIdentity as () => unknown)()).toBeUndefined(); // the chain, not the name
  });

  it('verify-full checks the chain and the host name; verify-ca without a root certificate is refused before connecting', () => {
    const ca = rootCert();
    const full = plan(`postgres://u@db.example/ic?sslmode=verify-full&sslrootcert=${encodeURIComponent(ca)}`).config.ssl as Record<string, unknown>;
    expect(full.checkServerIdentity).toBeUndefined(); // Node's own: the certificate must name db.example
    expect(full.servername).toBe('db.example');
    expect(() => plan('postgres://u@db.example/ic?sslmode=verify-ca', { HOME: '/nonexistent' })).toThrow(ConfigError);
    expect(plan('postgres://u@db.example/ic?sslmode=verify-full&sslrootcert=system').config.ssl).not.toHaveProperty('ca'); // the system's CAs
  });

  it('disable and allow: plain text first; PGSSLMODE when the URL says nothing; a unix socket never uses TLS', () => {
    expect(plan('postgres://u@db.example/ic?sslmode=disable').tls).toBe('never');
    expect(plan('postgres://u@db.example/ic?sslmode=allow').tls).toBe('fallback');
    expect(plan('postgres://u@db.example/ic', { PGSSLMODE: 'require' }).tls).toBe('only');
    expect(plan('postgres:///ic?host=/var/run/postgresql&sslmode=require').tls).toBe('never');
    expect(() => plan('postgres://u@db.example/ic?sslmode=sometimes')).toThrow(/sslmode must be one of/);
  });
});

describe("libpq's defaults", () => {
  it("the server's local socket and the operating system's user; PG* variables when the URL names none", () => {
    const local = plan('postgres:///ic').config;
    expect(String(local.host)).toMatch(/^\//);
    expect(local.user).toBe(userInfo().username);
    const fromEnv = plan('postgres:///', { PGHOST: 'db.example', PGPORT: '6543', PGUSER: 'alice', PGDATABASE: 'team' }).config;
    expect(fromEnv).toMatchObject({ host: 'db.example', port: 6543, user: 'alice', database: 'team' });
  });

  it('an empty password in the URL is no password (the password file or PGPASSWORD then gives it); several hosts are refused', () => {
    // No password: a function that reads the password file when the server asks (pg's own reading is deprecated).
    expect(typeof plan('postgres://u@db.example/ic').config.password).toBe('function');
    expect(plan('postgres://u:s3cret@db.example/ic').config.password).toBe('s3cret');
    expect(() => plan('postgres://u@a.example,b.example/ic')).toThrow(/several hosts/);
  });
});
