// Which login sent ahead by bin/ic a connection may use (src/store/postgres/wire/login-ahead.ts): only the very
// one it would make itself, first try included; any other is closed unused.
import { describe, expect, it } from 'vitest';
import { loginStartedFor, type LoginAhead, type SentEndpoint } from '../../../src/store/postgres/wire/login-ahead';
import type { Endpoint } from '../../../src/store/postgres/wire/target';

function sentAhead(endpoint: SentEndpoint, startup: string): { ahead: LoginAhead; closed: () => boolean } {
  let closed = false;
  const stream = { fd: 99, setBlocking: () => 0, close: () => void (closed = true) };
  return { ahead: { file: '/nonexistent/postgres-login.json', url: 'postgresql:///ic', sent: { endpoint, startup: Buffer.from(startup), stream, written: startup.length } }, closed: () => closed };
}

const localhost: Endpoint = { kind: 'tcp', addresses: ['127.0.0.1', '::1'], port: 5432 };

describe('a login sent ahead', () => {
  it('is used for the same socket and the same startup message', () => {
    const { ahead, closed } = sentAhead({ kind: 'socket', path: '/run/pg/.s.PGSQL.5432' }, 'startup');
    expect(loginStartedFor(ahead, { kind: 'socket', path: '/run/pg/.s.PGSQL.5432' }, Buffer.from('startup'))).toBe(ahead.sent);
    expect(closed()).toBe(false);
    const tcp = sentAhead({ kind: 'tcp', address: '127.0.0.1', port: 5432, family: 4 }, 'startup');
    expect(loginStartedFor(tcp.ahead, localhost, Buffer.from('startup'))).toBe(tcp.ahead.sent);
  });

  it('is closed unused for another message, socket, port, or an address a usual login would not try first', () => {
    const cases: [SentEndpoint, string, Endpoint][] = [
      [{ kind: 'socket', path: '/run/pg/.s.PGSQL.5432' }, 'another user', { kind: 'socket', path: '/run/pg/.s.PGSQL.5432' }],
      [{ kind: 'socket', path: '/tmp/.s.PGSQL.5432' }, 'startup', { kind: 'socket', path: '/run/pg/.s.PGSQL.5432' }],
      [{ kind: 'tcp', address: '127.0.0.1', port: 5433, family: 4 }, 'startup', localhost],
      // recorded once when 127.0.0.1 did not answer: a usual login tries 127.0.0.1 first, so must this one
      [{ kind: 'tcp', address: '::1', port: 5432, family: 6 }, 'startup', localhost],
      [{ kind: 'socket', path: '/run/pg/.s.PGSQL.5432' }, 'startup', localhost],
    ];
    for (const [endpoint, startup, wanted] of cases) {
      const { ahead, closed } = sentAhead(endpoint, startup);
      expect(loginStartedFor(ahead, wanted, Buffer.from('startup'))).toBeUndefined();
      expect(closed()).toBe(true);
    }
  });

  it('none sent, nothing to use', () => {
    expect(loginStartedFor(undefined, localhost, Buffer.from('startup'))).toBeUndefined();
    expect(loginStartedFor({ file: '/nonexistent', url: 'postgresql:///ic' }, localhost, Buffer.from('startup'))).toBeUndefined();
  });
});
