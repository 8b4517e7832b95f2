// Login ahead (docs/postgres.md): with IC_DB naming a server, bin/ic opens the connection of the install's last
// login and sends its startup message before it reads its bundle; the call uses that socket only if it is the
// very login it would make. What users see must not change: every call here answers as it always did. The
// backends a call starts are counted by the server (pg_stat_database.sessions of a database of the test's
// own): one per call when the login ahead is used, two if a call logged in again beside it.
import { execFileSync, spawn } from 'node:child_process';
import { createConnection, type Socket } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyInstall, makeTempRepo, runBin, type TempRepo } from '../support/cli';
import { startupMessage } from '../../src/store/postgres/wire/protocol';
import { freshDatabaseUrl, serverTcpUrl, serverUrl, withConnection } from './support';

interface LoginRecord {
  url?: string;
  endpoint: { kind: string; path?: string; address?: string; port?: number };
  startup: string;
}

const databaseOf = (url: string): string => /^postgres(?:ql)?:\/\/[^/?#]*\/([^?#]*)/.exec(url)![1]!;

function sessionsOf(database: string): number {
  return withConnection(serverUrl(), (db) => db.get<{ sessions: number }>('SELECT sessions::int AS sessions FROM pg_stat_database WHERE datname = ?', [database])!.sessions);
}

// A backend's session is counted by the server once it has ended, a moment after the call's process: waits
// until the count reaches `atLeast`, then a little longer, so that a second backend would be seen too.
async function settledSessions(database: string, atLeast: number): Promise<number> {
  const giveUpAt = Date.now() + 10_000;
  while (sessionsOf(database) < atLeast && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 25));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return sessionsOf(database);
}

describe('login ahead', () => {
  let repo: TempRepo;
  let install: ReturnType<typeof copyInstall>;
  beforeEach(() => {
    repo = makeTempRepo('ic-login-');
    execFileSync('git', ['-C', repo.dir, 'config', 'ic.project', 'login-ahead']);
    install = copyInstall();
  });
  afterEach(() => {
    repo.cleanup();
    install.cleanup();
  });

  const recordFile = () => join(install.dist, 'postgres-login.json');
  const record = (): LoginRecord => JSON.parse(readFileSync(recordFile(), 'utf8')) as LoginRecord;
  const startupText = (saved: LoginRecord) => Buffer.from(saved.startup, 'base64').toString('latin1');
  const edit = (file: string, db: string, env: Record<string, string> = {}) =>
    runBin(install.bin, ['coord', 'hook', 'claude-pre-edit'], {
      cwd: repo.dir,
      env: { IC_DB: db, ...env },
      input: JSON.stringify({
        session_id: 'ahead',
        cwd: repo.dir,
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: join(repo.dir, file), old_string: 'a', new_string: 'b' },
      }),
    });
  const held = async (db: string) => {
    const listed = await runBin(install.bin, ['coord', 'list', '--active', '--owner', 'claude-ahead', '--json'], { cwd: repo.dir, env: { IC_DB: db } });
    return (JSON.parse(listed.stdout) as { locks: { pattern: string }[] }).locks.map((lock) => lock.pattern).sort();
  };

  it('a call records its login; the next one logs in ahead with it and starts one backend, not two', async () => {
    const url = freshDatabaseUrl();
    const database = databaseOf(url);
    const before = sessionsOf(database);

    expect(await edit('src/a.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    const first = await settledSessions(database, before + 1);
    const saved = record();
    expect(saved.url).toBe(url);
    expect(saved.endpoint.kind).toBe('socket');
    expect(startupText(saved)).toContain(`database\0${database}\0`);
    expect(startupText(saved)).not.toContain('lock_timeout'); // a deadline's lock wait would make every call's bytes differ

    expect(await edit('src/b.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await settledSessions(database, first + 1)).toBe(first + 1);
    expect(readFileSync(recordFile(), 'utf8')).toBe(JSON.stringify(saved)); // used as it was, not written again
    expect(await held(url)).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('a record of another login, a dead endpoint or a damaged file: the call logs in as usual and records its own', async () => {
    const url = freshDatabaseUrl();
    const database = databaseOf(url);
    expect(await edit('src/a.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    const good = readFileSync(recordFile(), 'utf8');
    const saved = record();

    // The same server and options, another database: bin/ic sends it (no URL is kept to tell), the call does not use it.
    const parameters = Object.fromEntries(
      startupText(saved)
        .slice(8, -2)
        .split('\0')
        .flatMap((_, at, all) => (at % 2 === 0 ? [[all[at], all[at + 1]]] : [])),
    );
    const elsewhere = { endpoint: saved.endpoint, startup: startupMessage({ ...parameters, database: 'postgres' }).toString('base64') };
    const damaged = [JSON.stringify(elsewhere), JSON.stringify({ ...saved, endpoint: { kind: 'socket', path: join(install.dir, 'no-server', '.s.PGSQL.5432') } }), '{"endpoint":', ''];
    let sessions = sessionsOf(database);
    for (const [at, text] of damaged.entries()) {
      writeFileSync(recordFile(), text);
      expect(await edit(`src/damaged${at}.ts`, url)).toMatchObject({ exitCode: 0, stdout: '' });
      expect(readFileSync(recordFile(), 'utf8')).toBe(good);
      sessions = await settledSessions(database, sessions + 1);
    }
    expect(await held(url)).toEqual(['src/a.ts', 'src/damaged0.ts', 'src/damaged1.ts', 'src/damaged2.ts', 'src/damaged3.ts']);
  });

  it('another database named by IC_DB: the record of the first is not sent, and the second is recorded', async () => {
    const first = freshDatabaseUrl();
    const second = freshDatabaseUrl();
    const initially = sessionsOf(databaseOf(first));
    expect(await edit('src/a.ts', first)).toMatchObject({ exitCode: 0, stdout: '' });
    const before = await settledSessions(databaseOf(first), initially + 1);
    expect(await edit('src/a.ts', second)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(record().url).toBe(second);
    await settledSessions(databaseOf(second), 1);
    expect(sessionsOf(databaseOf(first))).toBe(before); // no backend started for the first database's record
  });

  // (A backend that never got past the password exchange is not counted: the count cannot tell here whether
  // the login sent ahead was used, only that the call logged in once. The unix socket test above tells.)
  it('over TCP with a password (SCRAM): the record keeps no password, and the next call, sent ahead, logs in once', async () => {
    const url = freshDatabaseUrl(serverTcpUrl());
    const password = decodeURIComponent(/:\/\/[^:]*:([^@]*)@/.exec(url)![1]!);
    const database = databaseOf(url);
    const before = sessionsOf(database);
    expect(await edit('src/a.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    const first = await settledSessions(database, before + 1);
    const text = readFileSync(recordFile(), 'utf8');
    expect(text).not.toContain(password);
    expect(record()).toMatchObject({ endpoint: { kind: 'tcp', address: '127.0.0.1' } });
    expect(record().url).toBeUndefined(); // a URL with a password is not kept: any IC_DB then sends the record

    expect(await edit('src/b.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await settledSessions(database, first + 1)).toBe(first + 1);
    expect(await held(url)).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it("a connection that is libpq's forgets the record (the next call would only open a socket it does not use)", async () => {
    const url = freshDatabaseUrl();
    expect(await edit('src/a.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(existsSync(recordFile())).toBe(true);
    const throughLibpq = `${url}&target_session_attrs=any`; // a parameter only libpq knows: auto chooses it
    expect(await edit('src/b.ts', throughLibpq)).toMatchObject({ exitCode: 0, stdout: '' });
    expect(existsSync(recordFile())).toBe(false);
    expect(await held(url)).toEqual(['src/a.ts', 'src/b.ts']);
  });

  it('a command that opens no database ends at once, even with the login sent ahead still connecting', async () => {
    // A listening socket that never accepts, its queue filled: the kernel drops further connection requests,
    // so a connect to it stays under way (for about two minutes) unless the socket is closed.
    const listener = spawn('python3', ['-c', 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(0); print(s.getsockname()[1], flush=True); time.sleep(120)']);
    const fillers: Socket[] = [];
    try {
      const port = Number(await new Promise<string>((resolve) => listener.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()))));
      for (let i = 0; i < 3; i++) fillers.push(createConnection({ host: '127.0.0.1', port }).on('error', () => undefined));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const url = `postgresql://ic@127.0.0.1:${port}/ic`;
      writeFileSync(
        recordFile(),
        JSON.stringify({ url, endpoint: { kind: 'tcp', address: '127.0.0.1', port, family: 4 }, startup: startupMessage({ user: 'ic', database: 'ic' }).toString('base64') }),
      );
      const started = Date.now();
      const version = await runBin(install.bin, ['--version'], { cwd: repo.dir, env: { IC_DB: url }, timeout: 30_000 });
      expect(version.exitCode).toBe(0);
      expect(version.stdout).toMatch(/\d+\.\d+\.\d+/);
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const filler of fillers) filler.destroy();
      listener.kill();
    }
  });

  it('IC_PG_LOGIN_AHEAD=0 sends nothing ahead: the call logs in itself', async () => {
    const url = freshDatabaseUrl();
    const database = databaseOf(url);
    const before = sessionsOf(database);
    expect(await edit('src/a.ts', url)).toMatchObject({ exitCode: 0, stdout: '' });
    const first = await settledSessions(database, before + 1);
    writeFileSync(recordFile(), JSON.stringify({ ...record(), startup: Buffer.from('not a startup message').toString('base64') }));
    expect(await edit('src/b.ts', url, { IC_PG_LOGIN_AHEAD: '0' })).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await settledSessions(database, first + 1)).toBe(first + 1);
    expect(startupText(record())).toBe('not a startup message'); // read by no one, so not rewritten
  });
});
