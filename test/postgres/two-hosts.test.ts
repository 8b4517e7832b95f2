// Two "hosts" on one PostgreSQL server (issue #24): two clones of one repository in different directories,
// whose clients' clocks are 2 h ahead and 2 h behind (IC_TEST_CLOCK=1, IC_NOW). They meet in one scope (the
// repository's identity, not a path), a lock taken by one blocks the other, and every expiry follows the
// server's clock, never a client's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COORD_BIN, runBin, type RunResult } from '../support/cli';
import { freshPostgresDatabase, type TestDatabase } from '../support/engine';
import { serverUrl, withConnection } from './support';

const HOUR = 3_600_000;

let root: string;
let database: TestDatabase;
let ahead: string; // clone on the host whose clock is 2 h fast
let behind: string; // clone on the host whose clock is 2 h slow

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore' });
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ic-two-hosts-')));
  const origin = join(root, 'origin');
  git(root, 'init', '-q', '-b', 'main', origin);
  writeFileSync(join(origin, 'README.md'), 'one repository\n');
  git(origin, '-c', 'user.email=t@example.com', '-c', 'user.name=T', '-c', 'commit.gpgsign=false', 'commit', '-q', '--allow-empty', '-m', 'root');
  ahead = join(root, 'host-a', 'work');
  behind = join(root, 'elsewhere', 'host-b', 'checkout');
  git(root, 'clone', '-q', origin, ahead);
  git(root, 'clone', '-q', origin, behind);
  database = freshPostgresDatabase();
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  database?.drop();
});

// A client on one host: its own clone, its own (wrong) clock, the shared server.
function on(host: 'ahead' | 'behind', args: string[], owner: string): Promise<RunResult> {
  const skew = host === 'ahead' ? 2 * HOUR : -2 * HOUR;
  // IC_TEST_PG_CLIENT_CLOCK unset: the server's clock decides, as in production (see test/support/engine.ts).
  const env = { IC_DB: database.url, IC_OWNER: owner, IC_TEST_CLOCK: '1', IC_TEST_PG_CLIENT_CLOCK: undefined, IC_NOW: new Date(Date.now() + skew).toISOString() };
  return runBin(COORD_BIN, args, { cwd: host === 'ahead' ? ahead : behind, env });
}

// The server's clock in ms.
async function serverNow(): Promise<number> {
  return withConnection(serverUrl(), (db) => db.serverNowMs());
}

describe('two hosts, one repository, clocks 4 h apart', () => {
  it('meet in one scope: a file reservation by one blocks the other, both ways', async () => {
    const a = await on('ahead', ['reserve', 'src/**', '--ttl', '1h'], 'alice');
    expect(a.exitCode, a.stdout + a.stderr).toBe(0);
    const b = await on('behind', ['reserve', 'src/app.ts', '--ttl', '1h'], 'bob');
    expect(b.exitCode, b.stdout).toBe(1);
    expect(b.json.error.conflicts[0]).toMatchObject({ held: { owner: 'alice', pattern: 'src/**' } });

    const docs = await on('behind', ['reserve', 'docs/**', '--ttl', '1h'], 'bob');
    expect(docs.exitCode, docs.stdout + docs.stderr).toBe(0);
    // Alice's clock is 2 h ahead: by it, Bob's 1 h lock ended an hour ago. The server says it is live.
    const over = await on('ahead', ['reserve', 'docs/guide.md', '--ttl', '1h'], 'alice');
    expect(over.exitCode, over.stdout).toBe(1);
    expect(over.json.error.conflicts[0]).toMatchObject({ held: { owner: 'bob', pattern: 'docs/**' } });
    // And by Bob's clock (2 h behind) Alice's lock is not even taken yet: it still blocks him.
    expect((await on('behind', ['check', 'src/x.ts'], 'bob')).exitCode).toBe(1);
  });

  it('a named lock taken on one host is held against the other', async () => {
    expect((await on('behind', ['lock', 'deploy', '--ttl', '1h'], 'bob')).exitCode).toBe(0);
    const taken = await on('ahead', ['lock', 'deploy', '--ttl', '1h'], 'alice');
    expect(taken.exitCode, taken.stdout).toBe(1);
    expect(JSON.stringify(taken.json)).toContain('bob');
  });

  it("stamps times with the server's clock: neither client's", async () => {
    const before = await serverNow();
    const granted = await on('ahead', ['reserve', 'lib/**', '--ttl', '1h'], 'carol');
    const after = await serverNow();
    expect(granted.exitCode, granted.stdout + granted.stderr).toBe(0);
    const lock = granted.json.locks[0];
    const created = Date.parse(lock.created_at);
    // A second of slack each side for the server's own rounding; the client's clock is 2 h away from both.
    expect(created).toBeGreaterThanOrEqual(before - 1000);
    expect(created).toBeLessThanOrEqual(after + 1000);
    expect(Date.parse(lock.expires_at) - created).toBe(HOUR);
  });

  it("says how long a holder keeps it by the server's clock: in a refusal, a check, a table and a hook's deny", async () => {
    expect((await on('ahead', ['reserve', 'ui/**', '--ttl', '1h'], 'frank')).exitCode).toBe(0);
    // From the host 2 h behind, its own clock would say "in 3.0h"; from the host ahead, "1.0h ago".
    const refused = await on('behind', ['reserve', 'ui/app.ts'], 'gina');
    expect(refused.json.error.message).toMatch(/\(in (59|60)m, /);
    const checked = await on('ahead', ['check', 'ui/app.ts', '--format', 'table'], 'gina');
    expect(checked.stdout).toMatch(/\(in (59|60)m, /);
    const table = await on('ahead', ['list', '--active', '--format', 'table'], 'gina');
    const row = table.stdout.split('\n').find((line) => line.includes('ui/**'));
    expect(row).toMatch(/ active /);
    expect(row).toMatch(/in (59|60)m/);
    const edit = JSON.stringify({
      session_id: 'gina',
      cwd: behind,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(behind, 'ui/app.ts'), old_string: 'a', new_string: 'b' },
    });
    const env = { IC_DB: database.url, IC_TEST_CLOCK: '1', IC_TEST_PG_CLIENT_CLOCK: undefined, IC_NOW: new Date(Date.now() - 2 * HOUR).toISOString() };
    const denied = await runBin(COORD_BIN, ['hook', 'claude-pre-edit'], { cwd: behind, env, input: edit });
    expect(denied.json.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(denied.json.hookSpecificOutput.permissionDecisionReason).toMatch(/\(in (59|60)m\) unless released sooner/);
  });

  it("lets a lock expire when the server's clock says so, whatever the clients' clocks say", async () => {
    // A short lock taken by the host behind: by its own clock it would last until 2 h from now.
    const short = await on('behind', ['reserve', 'tmp/**', '--ttl', '2s'], 'dave');
    expect(short.exitCode, short.stdout + short.stderr).toBe(0);
    expect((await on('ahead', ['check', 'tmp/a'], 'erin')).exitCode).toBe(1); // the host ahead still sees it live
    const expiresAt = Date.parse(short.json.locks[0].expires_at);
    while ((await serverNow()) < expiresAt + 100) await new Promise((resolve) => setTimeout(resolve, 100));
    // Expired by the server: both hosts see it in its lock-delay (not live), then free after IC_LOCK_DELAY.
    const listed = await on('behind', ['list', '--active'], 'dave');
    expect(listed.json.locks.map((l: any) => l.pattern)).not.toContain('tmp/**');
    const late = await runBin(COORD_BIN, ['reserve', 'tmp/a', '--ttl', '1h'], {
      cwd: ahead,
      env: { IC_DB: database.url, IC_OWNER: 'erin', IC_TEST_CLOCK: '1', IC_TEST_PG_CLIENT_CLOCK: undefined, IC_NOW: new Date(Date.now() + 2 * HOUR).toISOString(), IC_LOCK_DELAY: '0s' },
    });
    expect(late.exitCode, late.stdout + late.stderr).toBe(0);
  });
});
