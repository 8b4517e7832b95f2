// Behind a pooler (issue #38, item 2): Debian's PgBouncer in transaction mode in front of the suite's server.
// Every transaction may run on another server connection, so nothing ic relies on may live in the session:
// statements with parameters go as unnamed prepared statements, per-transaction settings as SET LOCAL.
// PgBouncer refuses the startup `options` ic sends its settings in unless told to ignore them; the database
// then carries search_path (docs/postgres.md, "Behind PgBouncer").
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { coord, ic, makeTempRepo, runBin, IC_BIN } from '../support/cli';
import { freshDatabaseUrl, withConnection } from './support';

const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((path) => existsSync(path));
let bouncer: ChildProcess | undefined;
let dir: string;
let port: number;

async function freePort(): Promise<number> {
  return await new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
}

beforeAll(async () => {
  if (!PGBOUNCER) return;
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pgbouncer-')));
  port = await freePort();
  const serverPort = /[?&]port=(\d+)/.exec(inject('pgUrl'))![1];
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${inject('pgDir')} port=${serverPort} user=postgres`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'ignore_startup_parameters = options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  // PgBouncer will not run as root: as root it runs as the cluster's owner, as the server does.
  const root = process.getuid?.() === 0;
  if (root) {
    const owner = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('postgres:'))!
      .split(':');
    chownSync(dir, Number(owner[2]), Number(owner[3]));
  }
  const [command, args] = root ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER, join(dir, 'pgbouncer.ini')]] : [PGBOUNCER, [join(dir, 'pgbouncer.ini')]];
  bouncer = spawn(command, args, { stdio: 'ignore' });
  for (let tries = 0; tries < 100; tries++) {
    if (existsSync(join(dir, 'pgbouncer.pid'))) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);

afterAll(() => {
  if (dir && existsSync(join(dir, 'pgbouncer.pid'))) {
    try {
      process.kill(Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8')), 'SIGTERM');
    } catch {
      // gone already
    }
  }
  bouncer?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!PGBOUNCER)('behind PgBouncer in transaction mode', () => {
  it('init, reserve, a conflict, the edit hook and list all work through the pooler', async () => {
    const direct = freshDatabaseUrl();
    const name = /\/\/\/([^?]+)/.exec(direct)![1]!;
    await withConnection(direct, (db) => db.exec(`ALTER DATABASE ${name} SET search_path = ic`));
    const url = `postgresql://postgres@127.0.0.1:${port}/${name}`; // sslmode=prefer: PgBouncer has no TLS here, plain text follows
    const repo = makeTempRepo('ic-pgbouncer-');
    try {
      execFileSync('git', ['-C', repo.dir, 'commit', '-q', '--allow-empty', '-m', `first commit of ${repo.dir}`]);
      const env = { IC_DB: url };
      const init = await ic(repo, ['init'], { env });
      expect(init.exitCode, init.stderr).toBe(0);
      expect((await coord(repo, ['reserve', 'src/a.ts', '--owner', 'alice'], { env })).exitCode).toBe(0);
      const denied = await coord(repo, ['reserve', 'src/a.ts', '--owner', 'bob'], { env });
      expect(denied.json.error.code).toBe('CONFLICT');
      const payload = JSON.stringify({ session_id: 'pooled-session', tool_name: 'Edit', tool_input: { file_path: join(repo.dir, 'b.ts') }, cwd: repo.dir });
      const hook = await runBin(IC_BIN, ['coord', 'hook', 'claude-pre-edit'], { cwd: repo.dir, env, input: payload });
      expect(hook.exitCode, hook.stderr).toBe(0);
      expect(hook.stdout).not.toContain('deny');
      const listed = await coord(repo, ['list'], { env });
      expect(listed.json.locks.map((lock: { pattern: string }) => lock.pattern).sort()).toEqual(['b.ts', 'src/a.ts']);
      // The tables are where the database's search_path says, not in public: the pooler dropped no setting ic needed.
      await withConnection(direct, async (db) =>
        expect((await db.get<{ n: number }>("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'ic' AND table_name = 'locks'"))!.n).toBe(1),
      );
    } finally {
      repo.cleanup();
    }
  });
});
