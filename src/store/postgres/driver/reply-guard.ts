import type { Duplex } from 'node:stream';

// pg-protocol's parser loops forever on an error or notice message without its terminating NUL (it reads past
// the message's end one empty string at a time): on this thread nothing could then bound the call. So the
// bytes reach pg's parser only once their framing is checked: a length below 4, or an error or notice whose
// fields do not end where the message does, destroys the stream with MalformedReply instead. pg is not changed:
// its listener on the stream is wrapped, not edited. What pg's parser (or its handlers) throw on a message they
// do not know is caught there too: thrown from a socket's listener, it would end the process.

// Its message is whole: what the session reports about the server.
export class MalformedReply extends Error {}

// AuthenticationRequest codes pg does not answer (PostgreSQL's protocol; pg knows 0, 3, 5, 10–12).
const AUTH_METHODS: Record<string, string> = { '2': 'Kerberos V5', '6': 'SCM credentials', '7': 'GSSAPI', '8': 'GSSAPI', '9': 'SSPI' };

const ERROR = 0x45; // 'E'
const NOTICE = 0x4e; // 'N'

export function guardReplies(stream: Duplex): void {
  const parsers = stream.listeners('data') as ((chunk: Buffer) => void)[];
  if (parsers.length === 0) return;
  stream.removeAllListeners('data');
  const framing = new Framing();
  stream.on('data', (chunk: Buffer) => {
    const problem = framing.check(chunk);
    if (problem !== undefined) return void stream.destroy(new MalformedReply(`the server's reply is not PostgreSQL's protocol (${problem})`));
    try {
      for (const parse of parsers) parse.call(stream, chunk);
    } catch (error) {
      stream.destroy(new MalformedReply(refusal(error instanceof Error ? error.message : String(error))));
    }
  });
}

function refusal(message: string): string {
  const auth = /Unknown authenticationOk message type (\d+)/.exec(message)?.[1];
  if (auth !== undefined) return `the server asks for an authentication method ic does not support: ${AUTH_METHODS[auth] ?? `code ${auth}`}`;
  return `the server's reply is not what ic can read (${message})`;
}

// A statement that returns rows (SELECT, … RETURNING) always gets their columns' description from a
// PostgreSQL server, even with no rows: a reply without it is not an answer to what was asked (a server or
// proxy that answers something else), and reading on would take "no rows" for the truth.
export function replyShapeProblem(sql: string, columns: number): string | undefined {
  if (columns > 0 || !/^\s*SELECT\b|\bRETURNING\b/i.test(sql)) return undefined;
  return "the server's reply is not what ic asked for (no columns for a statement that returns rows)";
}

// Follows the messages across chunks: a header (type and length) at a time; an error's or notice's body kept
// whole to check (they are small), any other body only counted.
class Framing {
  private header = Buffer.alloc(5);
  private headerHave = 0;
  private bodyLeft = 0;
  private body: Buffer[] | undefined;

  check(chunk: Buffer): string | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.bodyLeft > 0) {
        const take = Math.min(this.bodyLeft, chunk.length - at);
        this.body?.push(chunk.subarray(at, at + take));
        this.bodyLeft -= take;
        at += take;
        if (this.bodyLeft === 0 && this.body) {
          const problem = fieldsProblem(Buffer.concat(this.body));
          this.body = undefined;
          if (problem) return problem;
        }
        continue;
      }
      const take = Math.min(5 - this.headerHave, chunk.length - at);
      chunk.copy(this.header, this.headerHave, at, at + take);
      this.headerHave += take;
      at += take;
      if (this.headerHave < 5) break;
      this.headerHave = 0;
      const type = this.header[0]!;
      const length = this.header.readInt32BE(1);
      if (length < 4) return `a message of length ${length}`;
      this.bodyLeft = length - 4;
      this.body = type === ERROR || type === NOTICE ? [] : undefined;
      if (this.bodyLeft === 0 && this.body) return 'an empty error message';
    }
    return undefined;
  }
}

// An error's or notice's fields: (type byte, text, NUL)*, then a NUL that ends the message.
function fieldsProblem(body: Buffer): string | undefined {
  let at = 0;
  while (at < body.length) {
    if (body[at] === 0) return at === body.length - 1 ? undefined : 'bytes after an error message';
    const end = body.indexOf(0, at + 1);
    if (end === -1) return 'an error message without its terminator';
    at = end + 1;
  }
  return 'an error message without its terminator';
}
