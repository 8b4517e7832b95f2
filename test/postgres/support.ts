import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { PostgresConnection, type PostgresOptions } from '../../src/store/postgres/connection';
import { withParameter } from '../../src/store/postgres/url';
// @ts-expect-error -- a plain .mjs script without type declarations
import { startPostgres, stopPostgres } from '../../scripts/postgres-server.mjs';

interface Server {
  url: string;
  tcpUrl: string;
  dir: string;
}
let own: Server | undefined;

// The file's server: its own (ownServer), else the suite's (test/postgres/global-setup.ts), which the files
// share. Over its unix socket (trusted) and over TCP (password); `dir` is what restartPostgres takes.
export function serverUrl(): string {
  return own?.url ?? inject('pgUrl');
}

export function serverTcpUrl(): string {
  return own?.tcpUrl ?? inject('pgTcpUrl');
}

export function serverDir(): string {
  return own?.dir ?? inject('pgDir');
}

// For a file that restarts, stops, signals or reconfigures its server: a throwaway server of its own for the
// whole file, so no other file's test ever meets that. Call it at the top of the file.
export function ownServer(): void {
  beforeAll(async () => {
    own = (await startPostgres()) as Server;
  }, 120_000);
  afterAll(() => {
    if (own) stopPostgres(own.dir);
    own = undefined;
  });
}

// A URL whose ic tables live in a schema of their own: tests share one database without seeing each other.
export function freshSchemaUrl(): { url: string; schema: string } {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  return { url: withParameter(serverUrl(), 'options', `-c search_path=${schema}`), schema };
}

export function connect(url: string = serverUrl(), options: PostgresOptions = {}): PostgresConnection {
  return PostgresConnection.open(url, options);
}

// Runs `body` with a connection that is closed once the body has settled, whatever happens.
export async function withConnection<T>(url: string, body: (db: PostgresConnection) => T | Promise<T>, options: PostgresOptions = {}): Promise<T> {
  const db = connect(url, options);
  try {
    return await body(db);
  } finally {
    db.close();
  }
}

// A database of its own for one test (CREATE DATABASE on the suite's server): tests that run the real bin
// never see each other's locks, events or project keys.
export function freshDatabaseUrl(base: string = serverUrl()): string {
  const name = `ic_${randomBytes(6).toString('hex')}`;
  execFileSync('psql', ['-qX', serverUrl(), '-c', `CREATE DATABASE ${name}`], { stdio: 'ignore' }); // psql: synchronous, as the tests call it
  return base.replace(/^(postgres(?:ql)?:\/\/[^/?#]*\/)[^?#]*/, `$1${name}`);
}

// A git repository `root/name` with one commit, its clone's project key `name` (git config ic.project).
export function keyedProject(root: string, name: string): string {
  const dir = join(root, name);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { stdio: 'ignore' });
  writeFileSync(join(dir, 'README.md'), `${name}\n`);
  git('add', 'README.md');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=T', '-c', 'commit.gpgsign=false', 'commit', '-q', '-m', name);
  git('config', 'ic.project', name);
  return dir;
}
