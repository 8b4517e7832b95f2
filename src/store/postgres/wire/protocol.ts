// PostgreSQL's frontend/backend protocol, version 3.0 (the part ic speaks): frontend messages as bytes, and
// backend bytes cut into messages and read. Pure: no socket, no clock.

const PROTOCOL_VERSION_3 = 196_608; // 3 << 16

// A message of the frontend: its type byte, then its length (itself included), then its body.
function message(type: string, body: Buffer): Buffer {
  const head = Buffer.allocUnsafe(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string): Buffer => Buffer.from(`${text}\0`, 'utf8');

function int16(value: number): Buffer {
  const out = Buffer.allocUnsafe(2);
  out.writeInt16BE(value, 0);
  return out;
}

function int32(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeInt32BE(value, 0);
  return out;
}

// The first message: no type byte; the protocol version and the session's parameters (user, database, …).
export function startupMessage(parameters: Readonly<Record<string, string>>): Buffer {
  const pairs = Object.entries(parameters).flatMap(([key, value]) => [cstring(key), cstring(value)]);
  const body = Buffer.concat([int32(PROTOCOL_VERSION_3), ...pairs, Buffer.from([0])]);
  return Buffer.concat([int32(body.length + 4), body]);
}

export const passwordMessage = (password: string): Buffer => message('p', cstring(password));

export function saslInitialResponse(mechanism: string, data: string): Buffer {
  const bytes = Buffer.from(data, 'utf8');
  return message('p', Buffer.concat([cstring(mechanism), int32(bytes.length), bytes]));
}

export const saslResponse = (data: string): Buffer => message('p', Buffer.from(data, 'utf8'));

// The simple query protocol: one or more statements without parameters.
export const queryMessage = (sql: string): Buffer => message('Q', cstring(sql));

// The extended protocol for one statement with text parameters (the server infers their types, as libpq's
// PQexecParams lets it): Parse, Bind, Describe, Execute, Sync in one write, so one round trip.
export function extendedQuery(sql: string, parameters: readonly (string | null)[]): Buffer {
  const values = parameters.map((value) => {
    if (value === null) return int32(-1);
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([int32(bytes.length), bytes]);
  });
  return Buffer.concat([
    message('P', Buffer.concat([cstring(''), cstring(sql), int16(0)])),
    message('B', Buffer.concat([cstring(''), cstring(''), int16(0), int16(parameters.length), ...values, int16(0)])),
    message('D', Buffer.concat([Buffer.from('P', 'latin1'), cstring('')])),
    message('E', Buffer.concat([cstring(''), int32(0)])),
    message('S', Buffer.alloc(0)),
  ]);
}

export const terminateMessage = (): Buffer => message('X', Buffer.alloc(0));

export interface BackendMessage {
  type: string;
  body: Buffer;
}

// Cuts whole messages off the front of what has arrived; `rest` is an incomplete tail to keep for later.
export function splitMessages(bytes: Buffer): { messages: BackendMessage[]; rest: Buffer } {
  const messages: BackendMessage[] = [];
  let at = 0;
  while (bytes.length - at >= 5) {
    const length = bytes.readInt32BE(at + 1);
    if (length < 4) throw new Error(`the server sent a message with an impossible length (${length})`);
    if (bytes.length - at < 1 + length) break;
    messages.push({ type: String.fromCharCode(bytes[at]!), body: bytes.subarray(at + 5, at + 1 + length) });
    at += 1 + length;
  }
  return { messages, rest: bytes.subarray(at) };
}

// Reads the null-terminated strings and fixed-width integers of one message body, in order.
class BodyReader {
  private at = 0;
  constructor(private readonly body: Buffer) {}

  int16(): number {
    const value = this.body.readInt16BE(this.at);
    this.at += 2;
    return value;
  }

  int32(): number {
    const value = this.body.readInt32BE(this.at);
    this.at += 4;
    return value;
  }

  cstring(): string {
    const end = this.body.indexOf(0, this.at);
    if (end === -1) throw new Error('the server sent a string without its terminator');
    const text = this.body.toString('utf8', this.at, end);
    this.at = end + 1;
    return text;
  }

  byte(): number {
    return this.body[this.at++]!;
  }

  bytes(length: number): Buffer {
    const out = this.body.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }

  rest(): Buffer {
    return this.body.subarray(this.at);
  }

  done(): boolean {
    return this.at >= this.body.length;
  }
}

export type Authentication =
  | { kind: 'ok' }
  | { kind: 'cleartext' }
  | { kind: 'md5'; salt: Buffer }
  | { kind: 'sasl'; mechanisms: string[] }
  | { kind: 'sasl-continue'; data: string }
  | { kind: 'sasl-final'; data: string }
  | { kind: 'other'; code: number };

const AUTHENTICATION_NAMES: Record<number, string> = { 2: 'Kerberos V5', 6: 'SCM credentials', 7: 'GSSAPI', 8: 'GSSAPI', 9: 'SSPI' };

export function authenticationName(code: number): string {
  return AUTHENTICATION_NAMES[code] ?? `method ${code}`;
}

export function readAuthentication(body: Buffer): Authentication {
  const reader = new BodyReader(body);
  const code = reader.int32();
  switch (code) {
    case 0:
      return { kind: 'ok' };
    case 3:
      return { kind: 'cleartext' };
    case 5:
      return { kind: 'md5', salt: reader.bytes(4) };
    case 10: {
      const mechanisms: string[] = [];
      while (!reader.done()) {
        const name = reader.cstring();
        if (name === '') break;
        mechanisms.push(name);
      }
      return { kind: 'sasl', mechanisms };
    }
    case 11:
      return { kind: 'sasl-continue', data: reader.rest().toString('utf8') };
    case 12:
      return { kind: 'sasl-final', data: reader.rest().toString('utf8') };
    default:
      return { kind: 'other', code };
  }
}

// An ErrorResponse or NoticeResponse: its fields by their one-letter codes (C the SQLSTATE, M the message, …).
export function readFields(body: Buffer): Record<string, string> {
  const fields: Record<string, string> = {};
  const reader = new BodyReader(body);
  while (!reader.done()) {
    const code = reader.byte();
    if (code === 0) break;
    fields[String.fromCharCode(code)] = reader.cstring();
  }
  return fields;
}

export interface Column {
  name: string;
  typeOid: number;
}

export function readRowDescription(body: Buffer): Column[] {
  const reader = new BodyReader(body);
  const count = reader.int16();
  const columns: Column[] = [];
  for (let index = 0; index < count; index++) {
    const name = reader.cstring();
    reader.int32(); // table oid
    reader.int16(); // column number
    const typeOid = reader.int32();
    reader.int16(); // type size
    reader.int32(); // type modifier
    reader.int16(); // format (text)
    columns.push({ name, typeOid });
  }
  return columns;
}

export function readDataRow(body: Buffer): (string | null)[] {
  const reader = new BodyReader(body);
  const count = reader.int16();
  const values: (string | null)[] = [];
  for (let index = 0; index < count; index++) {
    const length = reader.int32();
    values.push(length === -1 ? null : reader.bytes(length).toString('utf8'));
  }
  return values;
}

// The rows a command touched, from its tag ("INSERT 0 3", "UPDATE 2", "SELECT 5"), as libpq's PQcmdTuples
// reads it; 0 for a tag without a count ("BEGIN").
export function rowsOfTag(tag: string): number {
  const words = tag.split(' ');
  const last = words[words.length - 1]!;
  return words.length > 1 && /^\d+$/.test(last) ? Number(last) : 0;
}

export const readCString = (body: Buffer): string => new BodyReader(body).cstring();

export function readParameterStatus(body: Buffer): [string, string] {
  const reader = new BodyReader(body);
  return [reader.cstring(), reader.cstring()];
}

// libpq's PQserverVersion from server_version: 10 and later major * 10000 + minor ("15.8 (Debian …)" → 150008),
// before 10 major * 10000 + minor * 100 + patch ("9.6.24" → 90624).
export function serverVersionNumber(text: string): number {
  const match = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(text);
  if (!match) return 0;
  const [major, minor, patch] = [match[1], match[2], match[3]].map((part) => Number(part ?? 0)) as [number, number, number];
  return major >= 10 ? major * 10_000 + minor : major * 10_000 + minor * 100 + patch;
}
