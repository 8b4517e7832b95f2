// The wire protocol of ic's built-in PostgreSQL driver without a server: the bytes it writes, and how it cuts
// and reads what a server sends (test/postgres/ talks to a real one).
import { describe, expect, it } from 'vitest';
import {
  extendedQuery,
  queryMessage,
  readAuthentication,
  readDataRow,
  readFields,
  readRowDescription,
  rowsOfTag,
  serverVersionNumber,
  splitMessages,
  startupMessage,
} from '../../../src/store/postgres/wire/protocol';

// A backend message as a server would frame it.
function frame(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

describe('frontend messages', () => {
  it('a startup packet: length, protocol 3.0, the parameters as pairs of C strings, a final NUL', () => {
    const bytes = startupMessage({ user: 'ic', database: 'team' });
    expect(bytes.readInt32BE(0)).toBe(bytes.length);
    expect(bytes.readInt32BE(4)).toBe(196_608);
    expect(bytes.subarray(8).toString('latin1')).toBe('user\0ic\0database\0team\0\0');
  });

  it('a simple query carries its text, UTF-8, NUL-terminated', () => {
    const bytes = queryMessage("SELECT 'é'");
    expect(bytes.toString('latin1', 0, 1)).toBe('Q');
    expect(bytes.readInt32BE(1)).toBe(bytes.length - 1);
    expect(bytes.subarray(5).toString('utf8')).toBe("SELECT 'é'\0");
  });

  it('a statement with parameters is Parse, Bind, Describe, Execute, Sync in one write; NULL is length -1', () => {
    const { messages, rest } = splitMessages(extendedQuery('SELECT $1, $2', ['a', null]));
    expect(rest.length).toBe(0);
    expect(messages.map((message) => message.type).join('')).toBe('PBDES');
    const bind = messages[1]!.body;
    // portal "", statement "", 0 format codes, 2 parameters: length 1 "a", then -1, then 0 result formats
    expect([...bind]).toEqual([0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 97, 0xff, 0xff, 0xff, 0xff, 0, 0]);
  });
});

describe('backend messages', () => {
  it('are cut whole, an incomplete tail kept for the next read', () => {
    const ready = frame('Z', Buffer.from('I'));
    const complete = frame('C', Buffer.from('SELECT 1\0'));
    const both = Buffer.concat([complete, ready]);
    const first = splitMessages(both.subarray(0, complete.length + 3));
    expect(first.messages.map((message) => message.type)).toEqual(['C']);
    const second = splitMessages(Buffer.concat([first.rest, both.subarray(complete.length + 3)]));
    expect(second.messages.map((message) => message.type)).toEqual(['Z']);
    expect(second.rest.length).toBe(0);
  });

  it('a length below 4 is refused rather than looped on', () => {
    const bad = Buffer.from([0x5a, 0, 0, 0, 2]);
    expect(() => splitMessages(bad)).toThrow(/impossible length/);
  });

  it('rows: columns with their types, values as text or null', () => {
    const description = Buffer.concat([
      Buffer.from([0, 2]),
      Buffer.from('id\0'),
      Buffer.alloc(6),
      Buffer.from([0, 0, 0, 20]),
      Buffer.alloc(8),
      Buffer.from('name\0'),
      Buffer.alloc(6),
      Buffer.from([0, 0, 0, 25]),
      Buffer.alloc(8),
    ]);
    expect(readRowDescription(description)).toEqual([
      { name: 'id', typeOid: 20 },
      { name: 'name', typeOid: 25 },
    ]);
    const row = Buffer.concat([Buffer.from([0, 2, 0, 0, 0, 2]), Buffer.from('42'), Buffer.from([0xff, 0xff, 0xff, 0xff])]);
    expect(readDataRow(row)).toEqual(['42', null]);
  });

  it('an error response: its fields by code', () => {
    const body = Buffer.from('SERROR\0C55P03\0Mcould not obtain lock\0\0');
    expect(readFields(body)).toEqual({ S: 'ERROR', C: '55P03', M: 'could not obtain lock' });
  });

  it('authentication requests', () => {
    const code = (n: number, rest: Buffer = Buffer.alloc(0)) => Buffer.concat([Buffer.from([0, 0, 0, n]), rest]);
    expect(readAuthentication(code(0))).toEqual({ kind: 'ok' });
    expect(readAuthentication(code(5, Buffer.from([1, 2, 3, 4])))).toEqual({ kind: 'md5', salt: Buffer.from([1, 2, 3, 4]) });
    expect(readAuthentication(code(10, Buffer.from('SCRAM-SHA-256-PLUS\0SCRAM-SHA-256\0\0')))).toEqual({ kind: 'sasl', mechanisms: ['SCRAM-SHA-256-PLUS', 'SCRAM-SHA-256'] });
    expect(readAuthentication(code(7))).toEqual({ kind: 'other', code: 7 });
  });

  it('the rows a command touched, as PQcmdTuples reads its tag', () => {
    expect(rowsOfTag('INSERT 0 3')).toBe(3);
    expect(rowsOfTag('UPDATE 2')).toBe(2);
    expect(rowsOfTag('SELECT 0')).toBe(0);
    expect(rowsOfTag('BEGIN')).toBe(0);
  });

  it('the server version as PQserverVersion gives it', () => {
    expect(serverVersionNumber('15.18 (Debian 15.18-0+deb12u1)')).toBe(150018);
    expect(serverVersionNumber('17devel')).toBe(170000);
    expect(serverVersionNumber('9.6.24')).toBe(90624);
  });
});
