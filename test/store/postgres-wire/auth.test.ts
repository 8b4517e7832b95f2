// Passwords in ic's built-in PostgreSQL driver without a server: SCRAM-SHA-256 against RFC 7677's worked
// example, md5's answer, and the password file's matching rules (test/postgres/ logs in to a real server).
import { describe, expect, it } from 'vitest';
import { passwordFromPgpass } from '../../../src/store/postgres/wire/pgpass';
import { md5Password, scramClient, verifyServerFinal } from '../../../src/store/postgres/wire/scram';

describe('SCRAM-SHA-256', () => {
  it("gives RFC 7677's proof and expects its server signature", () => {
    const client = scramClient('pencil', { user: 'user', clientNonce: 'rOprNGfwEbeRWgbNEkqO' });
    expect(client.firstMessage).toBe('n,,n=user,r=rOprNGfwEbeRWgbNEkqO');
    const { finalMessage, expectedServerFinal } = client.respond('r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096');
    expect(finalMessage).toBe('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=');
    expect(expectedServerFinal).toBe('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
    expect(verifyServerFinal('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=', expectedServerFinal)).toBe(true);
    expect(verifyServerFinal('v=AAAA', expectedServerFinal)).toBe(false);
  });

  it('leaves the user name out, as PostgreSQL expects', () => {
    expect(scramClient('pencil', { clientNonce: 'abc' }).firstMessage).toBe('n,,n=,r=abc');
  });

  it('refuses a server nonce that does not extend ours, and a malformed challenge', () => {
    const client = scramClient('pencil', { clientNonce: 'abc' });
    expect(() => client.respond('r=xyz123,s=AAAA,i=4096')).toThrow(/nonce/);
    expect(() => client.respond('r=abc,s=AAAA,i=4096')).toThrow(/nonce/);
    expect(() => client.respond('r=abcdef,s=AAAA,i=0')).toThrow(/malformed/);
  });
});

describe('md5', () => {
  it('is md5 of (md5 of password + user, hex) + salt, as the server checks it', () => {
    // md5('secretalice') = '4a0a68b4…' is what PostgreSQL stores for alice; the answer hashes its hex with the salt.
    expect(md5Password('alice', 'secret', Buffer.from([1, 2, 3, 4]))).toBe('md598a0412b9c31436fc53776e863350083');
  });
});

describe('the password file', () => {
  const file = ['# comment', 'db.example:5432:*:alice:remote', 'localhost:5433:ic:*:local\\:colon', '*:*:*:bob:any', 'short:line'].join('\n');

  it('takes the first line whose fields all match, * matching anything', () => {
    expect(passwordFromPgpass(file, { host: 'localhost', port: '5433', database: 'ic', user: 'alice' })).toBe('local:colon');
    expect(passwordFromPgpass(file, { host: 'db.example', port: '5432', database: 'x', user: 'alice' })).toBe('remote');
    expect(passwordFromPgpass(file, { host: 'elsewhere', port: '1', database: 'x', user: 'bob' })).toBe('any');
  });

  it('gives nothing when no line matches', () => {
    expect(passwordFromPgpass(file, { host: 'localhost', port: '5432', database: 'ic', user: 'carol' })).toBeUndefined();
  });
});
