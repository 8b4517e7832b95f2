import type { Duplex } from 'node:stream';

// pg-protocol's parser loops forever on an error or notice message without its terminating NUL (it reads past
// the message's end one empty string at a time): on this thread nothing could then bound the call. So the
// bytes reach pg's parser only once their framing is checked: a length below 4, or an error or notice whose
// fields do not end where the message does, destroys the stream with MalformedReply instead. pg is not changed:
// its listener on the stream is wrapped, not edited.

export class MalformedReply extends Error {}

const ERROR = 0x45; // 'E'
const NOTICE = 0x4e; // 'N'

export function guardReplies(stream: Duplex): void {
  const parsers = stream.listeners('data') as ((chunk: Buffer) => void)[];
  if (parsers.length === 0) return;
  stream.removeAllListeners('data');
  const framing = new Framing();
  stream.on('data', (chunk: Buffer) => {
    const problem = framing.check(chunk);
    if (problem !== undefined) return void stream.destroy(new MalformedReply(problem));
    for (const parse of parsers) parse.call(stream, chunk);
  });
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
