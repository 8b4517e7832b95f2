// Which connections ic's built-in PostgreSQL driver makes, and where to, read from a URL and the PG* variables
// as libpq reads them; the rest is libpq's (src/store/postgres/choose-driver.ts).
import fc from 'fast-check';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { chooseDriver, optionsSet } from '../../../src/store/postgres/choose-driver';
import { connectionTarget, ipVersion, type TargetEnvironment } from '../../../src/store/postgres/wire/target';

const where = (env: NodeJS.ProcessEnv = {}, sockets: string[] = []): TargetEnvironment => ({ env, osUser: () => 'dev', socketExists: (path) => sockets.includes(path) });

function target(url: string, env: NodeJS.ProcessEnv = {}, sockets: string[] = []) {
  const result = connectionTarget(url, where(env, sockets));
  if (!result.ok) throw new Error(`not built-in: ${result.reason}`);
  return result.target;
}

function refusal(url: string, env: NodeJS.ProcessEnv = {}): string {
  const result = connectionTarget(url, where(env));
  if (result.ok) throw new Error('expected libpq');
  return result.reason;
}

describe('the built-in driver takes', () => {
  it('a unix socket named by host=, with the user, database and port of the URL', () => {
    expect(target('postgresql:///team?host=%2Ftmp%2Fpg&port=6543&user=ic')).toMatchObject({
      endpoint: { kind: 'socket', path: '/tmp/pg/.s.PGSQL.6543' },
      host: 'localhost',
      port: 6543,
      user: 'ic',
      database: 'team',
    });
  });

  it('no host at all: the first default socket directory that has the socket, else the first', () => {
    expect(target('postgres:///ic', {}, ['/tmp/.s.PGSQL.5432']).endpoint).toEqual({ kind: 'socket', path: '/tmp/.s.PGSQL.5432' });
    expect(target('postgres:///ic').endpoint).toEqual({ kind: 'socket', path: '/var/run/postgresql/.s.PGSQL.5432' });
  });

  it('a loopback address, with the password of the URL (percent-decoded)', () => {
    expect(target('postgresql://alice:s%40cret@127.0.0.1:5433/ic')).toMatchObject({ endpoint: { kind: 'tcp', addresses: ['127.0.0.1'], port: 5433 }, user: 'alice', password: 's@cret' });
    expect(target('postgresql://[::1]:5433/ic').endpoint).toEqual({ kind: 'tcp', addresses: ['::1'], port: 5433 });
    expect(target('postgresql://localhost/ic').endpoint).toEqual({ kind: 'tcp', addresses: ['127.0.0.1', '::1'], port: 5432 });
  });

  it('another address only with sslmode=disable (asked for plain text)', () => {
    expect(target('postgresql://10.0.0.5/ic?sslmode=disable').endpoint).toEqual({ kind: 'tcp', addresses: ['10.0.0.5'], port: 5432 });
  });

  it('PG* variables where the URL says nothing, the operating system user last', () => {
    expect(target('postgresql://', { PGHOST: '/run/pg', PGPORT: '5999', PGUSER: 'svc', PGDATABASE: 'coord', PGPASSWORD: 'pw' })).toMatchObject({
      endpoint: { kind: 'socket', path: '/run/pg/.s.PGSQL.5999' },
      user: 'svc',
      database: 'coord',
      password: 'pw',
    });
    expect(target('postgresql:///x?host=/s')).toMatchObject({ user: 'dev', database: 'x' });
    expect(target('postgresql://?host=/s')).toMatchObject({ user: 'dev', database: 'dev' });
  });

  it('connect_timeout in whole seconds, at least 2 (as libpq)', () => {
    expect(target('postgresql:///x?host=/s&connect_timeout=1').connectTimeoutMs).toBe(2000);
    expect(target('postgresql:///x?host=/s&connect_timeout=7').connectTimeoutMs).toBe(7000);
  });
});

describe('libpq takes', () => {
  it.each([
    ['a host name', 'postgresql://db.example/ic', /db.example/],
    ['TLS asked for', 'postgresql://127.0.0.1/ic?sslmode=require', /sslmode=require/],
    ['a remote address without sslmode=disable', 'postgresql://10.0.0.5/ic', /10.0.0.5/],
    ['several hosts', 'postgresql://h1:1,h2:2/ic', /several hosts/],
    ['a parameter only libpq knows', 'postgresql:///ic?host=/s&sslrootcert=/ca.pem', /sslrootcert/],
    ['a service', 'postgresql:///ic?host=/s&service=team', /service/],
    ['GSSAPI encryption required', 'postgresql:///ic?host=/s&gssencmode=require', /gssencmode/],
  ])('%s', (_name, url, reason) => {
    expect(refusal(url)).toMatch(reason);
  });

  it('a service named by PGSERVICE', () => {
    expect(refusal('postgresql:///ic?host=/s', { PGSERVICE: 'team' })).toMatch(/service/);
  });
});

// Every call over TCP asks whether its host is an IP literal; node:net's isIP would cost it ~5 ms to load.
describe('an IP literal is told without node:net, as net.isIP tells it', () => {
  it('named cases', () => {
    const cases = ['127.0.0.1', '10.1.2.3', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '1::', '::', '1:2:3:4:5:6:7:8', 'fe80::1%eth0', 'fe80::1%25eth0'];
    const not = [
      'localhost',
      'db.example.com',
      '1.2.3',
      '256.1.1.1',
      '01.1.1.1',
      '1.2.3.4 ',
      '1.2.3.4:5432',
      ':::',
      '[::1]',
      '::1/64',
      '1:2::3::4',
      '12345::',
      'g::1',
      '::\t1',
      '::\n1',
      ' ::1',
      '::1%',
      '1:2:3:4:5:6:7:8:9',
    ];
    for (const host of [...cases, ...not]) expect([host, ipVersion(host)]).toEqual([host, isIP(host)]);
  });

  it('any string over the characters that matter', () => {
    const chars = fc.constantFrom(...'0123456789abcdefABCDEFg:.%[]/ \t\n'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 24 }), (list) => {
        const host = list.join('');
        expect(ipVersion(host)).toBe(isIP(host));
      }),
      { numRuns: 20_000 },
    );
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6(), fc.ipV4Extended()), (host) => {
        expect(ipVersion(host)).toBe(isIP(host));
      }),
      { numRuns: 5_000 },
    );
  });
});

// The built-in driver sets the session's lock_timeout itself unless the URL's own options do (they win).
describe("a setting in a URL's options, as the server reads them", () => {
  it('every spelling of -c NAME=VALUE and --NAME=VALUE, and nothing that only mentions the name', () => {
    for (const options of ['-c lock_timeout=5', '-c lock-timeout=5', '--lock-timeout=5', '--lock_timeout=5', '-cLOCK_TIMEOUT=5', '-c statement_timeout=1 -c Lock_Timeout=9'])
      expect([options, optionsSet(options, 'lock_timeout')]).toEqual([options, true]);
    for (const options of ['', '-c search_path=lock_timeout', '-c x.lock_timeout=1', '-c statement_timeout=1', '-c search_path=a\\ -c\\ lock_timeout=1', '-c'])
      expect([options, optionsSet(options, 'lock_timeout')]).toEqual([options, false]);
  });
});

describe('IC_PG_DRIVER', () => {
  it('libpq for everything when it says so; the built-in driver otherwise where it can', () => {
    expect(chooseDriver('postgresql:///ic?host=/s', { IC_PG_DRIVER: 'libpq' }).driver).toBe('libpq');
    expect(chooseDriver('postgresql:///ic?host=/s', {}).driver).toBe('builtin');
    expect(chooseDriver('postgresql://db.example/ic', {}).driver).toBe('libpq');
  });

  it('builtin for a connection it cannot make is an error that says why, not a silent switch', () => {
    expect(() => chooseDriver('postgresql://db.example/ic', { IC_PG_DRIVER: 'builtin' })).toThrow(/db.example is not this machine/);
  });

  it('anything else is a usage error', () => {
    expect(() => chooseDriver('postgresql:///ic?host=/s', { IC_PG_DRIVER: 'pg' })).toThrow(/builtin, libpq or auto/);
  });
});
