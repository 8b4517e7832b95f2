import { renameSync, rmSync, writeFileSync } from 'node:fs';
import type { StreamHandle } from './stream-handle';
import type { Endpoint } from './target';
import { secretsOf } from '../url';

// Login ahead (docs/postgres.md, "Login ahead"): a call whose IC_DB names a server has bin/ic open the
// connection this install's last login used and send its startup message before the bundle is even read, so
// the server starts a backend while the client loads its code. bin/ic leaves what it did under this symbol;
// the call's first built-in connection takes it, and uses the socket only if it is the connection it would
// have made itself: the same endpoint and, byte for byte, the same startup message. Nothing secret is sent
// or kept: the startup message names the user, database and options, never a password.
export const LOGIN_AHEAD = Symbol.for('ic.postgres.login-ahead');

// Where a socket went: a unix socket's path, or one address of a TCP endpoint.
export type SentEndpoint = { kind: 'socket'; path: string } | { kind: 'tcp'; address: string; port: number; family: 4 | 6 };

export interface LoginAhead {
  // The install's record of its last built-in login (dist/postgres-login.json), which bin/ic read.
  file: string;
  // The call's IC_DB. Kept in the record when it holds no password: bin/ic then logs in ahead only for that
  // database, and an install that serves several does not start a backend it will not use at every call.
  url: string;
  // The login bin/ic started from that record, if there was one and its socket opened.
  sent?: { endpoint: SentEndpoint; startup: Buffer; stream: StreamHandle; written: number };
}

type WithLoginAhead = typeof globalThis & { [LOGIN_AHEAD]?: LoginAhead };

// Once per process: only the call's first connection may use it.
export function takeLoginAhead(): LoginAhead | undefined {
  const holder = globalThis as WithLoginAhead;
  const ahead = holder[LOGIN_AHEAD];
  holder[LOGIN_AHEAD] = undefined;
  return ahead;
}

// The login bin/ic started, if it is the one this connection would make; any other is closed unused (a
// server that asked for a password does not log that; one that let the client in logs it only if it logs
// every connection).
export function loginStartedFor(ahead: LoginAhead | undefined, endpoint: Endpoint, startup: Buffer): LoginAhead['sent'] {
  const sent = ahead?.sent;
  if (sent === undefined) return undefined;
  if (reaches(endpoint, sent.endpoint) && sent.startup.equals(startup)) return sent;
  sent.stream.close();
  return undefined;
}

// The address a usual login tries first: `localhost` is 127.0.0.1, then ::1, and a record made when the first
// did not answer must not keep later calls on the second.
function reaches(endpoint: Endpoint, sent: SentEndpoint): boolean {
  if (endpoint.kind === 'socket') return sent.kind === 'socket' && sent.path === endpoint.path;
  return sent.kind === 'tcp' && sent.port === endpoint.port && sent.address === endpoint.addresses[0];
}

// After a login made the usual way: the next call logs in ahead with it. Best effort (a read-only install
// simply logs in as it always did); tmp + rename keeps racing writers whole.
export function rememberLogin(ahead: LoginAhead, endpoint: SentEndpoint, startup: Buffer): void {
  try {
    const tmp = `${ahead.file}.${process.pid}.tmp`;
    const url = secretsOf(ahead.url, {}).length === 0 ? ahead.url : undefined;
    writeFileSync(tmp, JSON.stringify({ url, endpoint, startup: startup.toString('base64') }));
    renameSync(tmp, ahead.file);
  } catch {
    // nothing to keep it in
  }
}

// A call that made no connection in its synchronous part (a command that opens no database): the socket is
// closed, so that a connect still under way to an address that does not answer cannot keep the process alive.
export function closeUnusedLoginAhead(): void {
  takeLoginAhead()?.sent?.stream.close();
}

// A call whose connection is not the built-in driver's (libpq): the record would only have the next call
// open a socket it does not use.
export function forgetLogin(ahead: LoginAhead | undefined): void {
  if (ahead === undefined) return;
  ahead.sent?.stream.close();
  try {
    rmSync(ahead.file, { force: true });
  } catch {
    // a read-only install
  }
}
