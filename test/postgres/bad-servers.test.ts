// Bounded against bad servers (issue #38, item 3): whatever a server does — accept and never answer, send
// something that is not PostgreSQL's protocol, stall a TLS handshake, stop (SIGSTOP) as a paused VM does —
// every CLI command answers 69 within its connect or statement timeout, naming the server, and every hook
// answers by IC_HOOK_FAIL within IC_HOOK_TIMEOUT. Never a hang, never exit 70.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, makeTempRepo, runBin, IC_BIN, type TempRepo } from '../support/cli';
import { IcError } from '../../src/core/errors';
import { connect, freshDatabaseUrl, ownServer, serverDir } from './support';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

// What a misbehaving server does with each accepted connection (the client's first bytes: SSLRequest or StartupMessage).
type Behaviour = (socket: Socket, first: Buffer) => void;

async function fakeServer(behaviour: Behaviour): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', (first) => behaviour(socket, first));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as { port: number };
  return `postgresql://ic@127.0.0.1:${port}/ic?connect_timeout=2`;
}

const isSslRequest = (bytes: Buffer): boolean => bytes.length === 8 && bytes.readInt32BE(4) === 80877103;

// Declines TLS (as a server without it does), then answers the startup with `reply`.
function afterStartup(reply: Buffer): Behaviour {
  return (socket, first) => {
    if (!isSslRequest(first)) return void socket.write(reply);
    socket.write('N');
    socket.once('data', () => socket.write(reply));
  };
}

function message(type: string, body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

const int32 = (value: number): Buffer => Buffer.from([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]);
const LOGIN = Buffer.concat([message('R', int32(0)), message('Z', Buffer.from('I'))]);

// Logs in (no password), then answers every Sync or simple Query with `answer`.
function loggedIn(answer: Buffer): Behaviour {
  return (socket, first) => {
    let started = !isSslRequest(first);
    socket.write(started ? LOGIN : 'N');
    socket.on('data', (bytes: Buffer) => {
      if (!started) return void ((started = true), socket.write(LOGIN));
      for (let at = 0; at + 5 <= bytes.length; at += 1 + bytes.readInt32BE(at + 1)) if (bytes[at] === 0x53 || bytes[at] === 0x51) socket.write(answer);
    });
  };
}

function repoWithCommit(): TempRepo {
  const repo = makeTempRepo('ic-pg-bad-');
  execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', `first commit of ${repo.dir}`]);
  cleanups.push(repo.cleanup);
  return repo;
}

function editPayload(repo: TempRepo): string {
  return JSON.stringify({ session_id: 'bad-server-session', tool_name: 'Edit', tool_input: { file_path: join(repo.dir, 'a.ts') }, cwd: repo.dir });
}

// A command and a hook against `url`: the command is 69 naming the server; the hook answers as IC_HOOK_FAIL says.
async function expectBounded(url: string, saying = ''): Promise<void> {
  const repo = repoWithCommit();
  const shown = url.replace(/\?.*$/, '');
  const listed = await coord(repo, ['list'], { env: { IC_DB: url } });
  expect(listed.exitCode, listed.stderr).toBe(69);
  expect(listed.json.error.code).toBe('DB_UNAVAILABLE');
  expect(listed.json.error.message).toContain(shown);
  expect(listed.json.error.message).toContain(saying);
  expect(listed.stderr).not.toContain('    at '); // no stack trace: a clean error, not a crash

  for (const fail of ['open', 'closed'] as const) {
    const env = { IC_DB: url, IC_HOOK_TIMEOUT: '3s', IC_HOOK_FAIL: fail };
    const hook = await runBin(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd: repo.dir, env, input: editPayload(repo), timeout: 30_000 });
    expect(hook.exitCode, hook.stderr).toBe(0);
    const decision = JSON.parse(hook.stdout).hookSpecificOutput?.permissionDecision;
    if (fail === 'closed') expect(decision).toBe('deny');
    else expect(decision).not.toBe('deny');
    expect(hook.stdout).toContain(shown.replace(/^postgresql:\/\//, ''));
  }
}

describe('a server that misbehaves', () => {
  it('accepts and never answers: the command is 69 and the hook answers by IC_HOOK_FAIL', async () => {
    await expectBounded(await fakeServer(() => undefined));
  });

  it('stalls the TLS handshake (agrees to TLS, then says nothing): the same', async () => {
    const url = await fakeServer((socket, first) => {
      if (isSslRequest(first)) socket.write('S');
    });
    await expectBounded(`${url}&sslmode=require`);
  });

  it('sends a bogus length: the same', async () => {
    const bogus = Buffer.from([0x52, 0x7f, 0xff, 0xff, 0xf0, 0, 0, 0, 0]); // AuthenticationRequest of ~2 GB
    await expectBounded(await fakeServer(afterStartup(bogus)));
  });

  it('sends an error without its terminator: the same', async () => {
    const unterminated = message('E', Buffer.from('SFATAL\0C28000\0Mno')); // no closing NUL
    await expectBounded(await fakeServer(afterStartup(unterminated)));
  });

  it('sends a message type the protocol does not have: the same', async () => {
    await expectBounded(await fakeServer(afterStartup(message('!', Buffer.from('hello')))));
  });

  it('asks for an authentication method pg does not know (GSSAPI, or a code that does not exist): the same, naming it', async () => {
    await expectBounded(await fakeServer(afterStartup(message('R', int32(7)))), 'asks for an authentication method ic does not support: GSSAPI');
    await expectBounded(await fakeServer(afterStartup(message('R', int32(99)))), 'authentication method ic does not support: code 99');
  });

  it('logs in, then answers every statement with an empty result: the same (not an internal error)', async () => {
    const empty = Buffer.concat([message('C', Buffer.from('SELECT 0\0')), message('Z', Buffer.from('I'))]);
    await expectBounded(await fakeServer(loggedIn(empty)), "the server's reply is not what ic asked for");
    const repo = repoWithCommit();
    const reserved = await coord(repo, ['reserve', 'a.ts', '--owner', 'me'], { env: { IC_DB: await fakeServer(loggedIn(empty)) } });
    expect(reserved.exitCode, reserved.stderr).toBe(69);
  });

  it('logs in, then answers every statement with the login messages again: the same', async () => {
    await expectBounded(await fakeServer(loggedIn(LOGIN)));
  });
});

describe('a stopped server (SIGSTOP, as a paused VM)', () => {
  ownServer(); // stopping the suite's server would stall every other file's tests meanwhile
  const postmasterPid = (): number => Number(readFileSync(join(serverDir(), 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);

  it('a stopped postmaster: the command is 69 and the hook answers by IC_HOOK_FAIL', async () => {
    const url = `${freshDatabaseUrl()}&connect_timeout=2`;
    const pid = postmasterPid();
    process.kill(pid, 'SIGSTOP');
    cleanups.push(() => void process.kill(pid, 'SIGCONT'));
    await expectBounded(url);
  });

  it('a backend stopped mid-session: the statement is DB_UNAVAILABLE within its statement timeout', async () => {
    const db = connect(freshDatabaseUrl(), { statementTimeoutMs: 1_000 });
    cleanups.push(() => db.close());
    const backend = (await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;
    process.kill(backend, 'SIGSTOP');
    cleanups.push(() => void process.kill(backend, 'SIGCONT'));
    let caught: unknown;
    try {
      await db.get('SELECT 1');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(IcError);
    expect((caught as IcError).code).toBe('DB_UNAVAILABLE');
    expect((caught as IcError).message).toContain('did not answer');
  });
});
