// Bulk operations on 50,000 locks work in chunks, each its own short write transaction (docs/guarantees.md,
// "Bulk operations"): pre-edit hooks running beside them, with a busy timeout of 1 s, are answered with a
// deny for another owner's file (never a fail-open notice), and the operation still does all of its work.
// And a sweep of more than 100,000 lapsed locks leaves hooks deciding (the lock-delay candidates are
// narrowed by the request's directory like any other), never answering TOO_COMPLEX.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { claudeEdit } from '../hooks/fixtures';
import { COORD_BIN, coord, ic, makeTempRepo, runBin, type RunResult, type TempRepo } from '../support/cli';
import { seedLocks } from '../support/seed';

const N = 50_000;
const SESSION = '5d1c7e2a-0b7d-4e5f-8a1b-2c3d4e5f6a7b';
const as = (owner: string, env: Record<string, string> = {}) => ({ env: { IC_OWNER: owner, ...env } });
const spread = (i: number) => `pkg${i % 97}/src/m${Math.floor(i / 97)}/f${i}.ts`;

let repo: TempRepo;
beforeEach(async () => {
  repo = makeTempRepo('ic-bulk-');
  // carol's lock is what every hook below must be denied; the call also creates the database.
  expect((await coord(repo, ['reserve', 'held/file.ts', '--ttl', '2h'], as('carol'))).exitCode).toBe(0);
});
afterEach(() => repo.cleanup());

function hook(path: string): Promise<RunResult> {
  return ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, path)), env: { IC_OWNER: '', IC_BUSY_TIMEOUT: '1s' } });
}

// Pre-edit hooks for carol's file, one after another, for as long as `call` runs (at least 3).
async function besideHooks(call: Promise<RunResult>): Promise<{ value: RunResult; hooks: RunResult[] }> {
  const hooks: RunResult[] = [];
  let finished = false;
  void call.finally(() => (finished = true));
  while (!finished || hooks.length < 3) hooks.push(await hook('held/file.ts'));
  return { value: await call, hooks };
}

function expectDenied(result: RunResult): void {
  expect(result.exitCode, result.stderr).toBe(0);
  const out = JSON.parse(result.stdout);
  expect(out.hookSpecificOutput?.permissionDecision, result.stdout).toBe('deny'); // the whole answer when it is not a deny
  expect(out.hookSpecificOutput.permissionDecisionReason).toContain('carol');
  expect(out.systemMessage ?? '').not.toMatch(/allowed without a reservation|BUSY|TOO_COMPLEX/);
}

const bulk = (args: string[], owner: string) => runBin(COORD_BIN, args, { cwd: repo.dir, env: { IC_OWNER: owner }, timeout: 300_000 });
const activeOf = async (owner: string) => (await coord(repo, ['list', '--active', '--owner', owner])).json.locks.length;

describe('bulk operations on 50,000 locks beside concurrent hooks', () => {
  const seedActive = () => seedLocks(repo.db, { scope: repo.dir, owner: 'alice', count: N, pattern: spread, createdAt: Date.now(), expiresAt: Date.now() + 2 * 3_600_000 });

  it('release --all: every hook denies carol’s file while alice’s 50,000 locks are released, and all are', async () => {
    seedActive();
    const { value, hooks } = await besideHooks(bulk(['release', '--all'], 'alice'));
    expect(value.exitCode, value.stderr).toBe(0);
    expect(value.json.released).toHaveLength(N);
    hooks.forEach(expectDenied);
    expect(await activeOf('alice')).toBe(0);
    expect(await activeOf('carol')).toBe(1);
  }, 600_000);

  it('renew: every hook denies while 50,000 locks are renewed, and all are', async () => {
    seedActive();
    const { value, hooks } = await besideHooks(bulk(['renew', '--ttl', '5h'], 'alice'));
    expect(value.exitCode, value.stderr).toBe(0);
    expect(value.json.locks).toHaveLength(N);
    hooks.forEach(expectDenied);
    const expiring = (await coord(repo, ['list', '--active', '--owner', 'alice', '--expiring', '3h'])).json.locks;
    expect(expiring).toHaveLength(0); // every one now runs about 5 h
  }, 600_000);

  it('transfer: every hook denies while 50,000 locks move to bob, and all do', async () => {
    seedActive();
    const { value, hooks } = await besideHooks(bulk(['transfer', '--from', 'alice', '--to', 'bob'], 'alice'));
    expect(value.exitCode, value.stderr).toBe(0);
    hooks.forEach(expectDenied);
    expect(await activeOf('alice')).toBe(0);
    expect(await activeOf('bob')).toBe(N);
  }, 600_000);

  it('sweep: every hook denies while 50,000 lapsed locks are marked expired and purged', async () => {
    seedLocks(repo.db, { scope: repo.dir, owner: 'alice', count: N, pattern: spread, createdAt: Date.now() - 7_200_000, expiresAt: Date.now() - 3_600_000 });
    const { value, hooks } = await besideHooks(bulk(['sweep'], 'alice'));
    expect(value.exitCode, value.stderr).toBe(0);
    expect(value.json.expired).toBe(N);
    hooks.forEach(expectDenied);
    const purge = await besideHooks(runBin(COORD_BIN, ['sweep', '--older-than', '0s'], { cwd: repo.dir, env: { IC_NOW: new Date(Date.now() + 1_000).toISOString() }, timeout: 300_000 }));
    expect(purge.value.exitCode, purge.value.stderr).toBe(0);
    expect(purge.value.json.purged_locks).toBe(N);
    purge.hooks.forEach(expectDenied);
  }, 600_000);
});

describe('a sweep of more than 100,000 lapsed locks', () => {
  it('leaves hooks deciding every edit (deny, allow), never TOO_COMPLEX, through the whole lock-delay', async () => {
    const delay = { IC_LOCK_DELAY: '24h' };
    seedLocks(repo.db, { scope: repo.dir, owner: 'alice', count: 105_001, pattern: spread, createdAt: Date.now() - 7_200_000, expiresAt: Date.now() - 60_000 });
    const swept = await runBin(COORD_BIN, ['sweep'], { cwd: repo.dir, env: delay, timeout: 300_000 });
    expect(swept.json.expired).toBe(105_001);
    const env = { IC_OWNER: '', IC_BUSY_TIMEOUT: '1s', ...delay };
    const denied = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'held/file.ts')), env });
    expectDenied(denied);
    const allowed = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'new/file.ts')), env });
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stdout + allowed.stderr).not.toMatch(/TOO_COMPLEX|allowed without a reservation/);
    // The grant is real: carol cannot take the file the hook reserved for the session.
    expect((await coord(repo, ['check', 'new/file.ts'], as('carol'))).json.free).toBe(false);
    // A lapsed lock still binds others on its own path during the delay, and a reserve elsewhere is granted.
    const onLapsed = await coord(repo, ['reserve', spread(7)], as('bob', delay));
    expect(onLapsed.exitCode).toBe(1);
    expect(onLapsed.json.error.code).toBe('CONFLICT');
    expect((await coord(repo, ['reserve', 'other/**'], as('bob', delay))).exitCode).toBe(0);
  }, 600_000);

  it('an edit under a directory with 20,000 lapsed patterns on it is still decided, not refused as too complex', async () => {
    const delay = { IC_LOCK_DELAY: '24h' };
    // Patterns on the root itself are candidates of every path: the limit on comparisons must not turn the hook off.
    seedLocks(repo.db, { scope: repo.dir, owner: 'alice', count: 20_000, pattern: (i) => `*-a${i}.txt`, createdAt: Date.now() - 7_200_000, expiresAt: Date.now() - 60_000 });
    expect((await runBin(COORD_BIN, ['sweep'], { cwd: repo.dir, env: delay, timeout: 300_000 })).json.expired).toBe(20_000);
    const env = { IC_OWNER: '', ...delay };
    const blocked = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'x-a17.txt')), env });
    expect(JSON.parse(blocked.stdout).hookSpecificOutput.permissionDecision).toBe('deny');
    expect(blocked.stdout).toContain('alice');
    const allowed = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: claudeEdit(repo.dir, SESSION, join(repo.dir, 'src/ok.ts')), env });
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stdout + allowed.stderr).not.toMatch(/TOO_COMPLEX|allowed without a reservation/);
  }, 600_000);
});
