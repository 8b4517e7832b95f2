// The commit-message gate (install --commit-gate): real git commits in a temp repository.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, coord, ic, IC_BIN, makeTempRepo, type TempRepo } from '../support/cli';
import { startFakeClient, type FakeClient } from '../support/fake-client';

const repos: TempRepo[] = [];
const clients: FakeClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.kill();
  for (const repo of repos.splice(0)) repo.cleanup();
});

let counter = 0;
// Commits a fresh change with this message; returns git's verdict and what the hooks said.
function commit(repo: TempRepo, message: string, env: Record<string, string | undefined>): { ok: boolean; stderr: string } {
  writeFileSync(join(repo.dir, 'work.txt'), `change ${++counter}\n`);
  execFileSync('git', ['add', 'work.txt'], { cwd: repo.dir });
  const result = spawnSync('git', ['commit', '-q', '-m', message], { cwd: repo.dir, env: cleanEnv(env) as NodeJS.ProcessEnv, encoding: 'utf8' });
  return { ok: result.status === 0, stderr: result.stderr };
}

async function setUp(flag = '--commit-gate'): Promise<TempRepo> {
  const repo = makeTempRepo('ic-gate-');
  repos.push(repo);
  const installed = await ic(repo, ['coord', 'install', '--git', flag]);
  expect(installed.exitCode).toBe(0);
  return repo;
}

describe('commit-message gate', () => {
  it('accepts a message naming a claim the committer holds, refuses one that does not, and says which claims it has', async () => {
    const repo = await setUp();
    await coord(repo, ['claim', 'bd-12', '--owner', 'alice']);
    expect(commit(repo, 'bd-12: fix the parser', { IC_OWNER: 'alice' }).ok).toBe(true);
    const none = commit(repo, 'fix the parser', { IC_OWNER: 'alice' });
    expect(none.ok).toBe(false);
    expect(none.stderr).toMatch(/commit refused: the message names no work item \(\/bd-\[0-9a-z\]\+\/\)/);
    expect(none.stderr).toMatch(/your claims: bd-12/);
    const other = commit(repo, 'bd-99: not mine', { IC_OWNER: 'alice' });
    expect(other.ok).toBe(false);
    expect(other.stderr).toMatch(/names bd-99, which alice does not hold/);
    const bob = commit(repo, 'bd-12: bob sneaks in', { IC_OWNER: 'bob' });
    expect(bob.ok).toBe(false);
    expect(bob.stderr).toMatch(/you hold no claim/);
    expect(commit(repo, 'bd-12 no IC_OWNER', {}).stderr).toMatch(/IC_OWNER is not set/);
  });

  it('warns with IC_GATE=warn, skips with IC_GATE=off', async () => {
    const repo = await setUp();
    const warned = commit(repo, 'no item', { IC_OWNER: 'alice', IC_GATE: 'warn' });
    expect(warned.ok).toBe(true);
    expect(warned.stderr).toMatch(/warning: the message names no work item/);
    const before = execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: repo.dir, encoding: 'utf8' }).trim();
    expect(commit(repo, 'no item', { IC_OWNER: 'alice', IC_GATE: 'off' }).ok).toBe(true);
    expect(Number(execFileSync('git', ['rev-list', '--count', 'HEAD'], { cwd: repo.dir, encoding: 'utf8' }).trim())).toBe(Number(before) + 1);
  });

  it("a claim released within the hour still counts; after the hour it does not; a session counts its subagents' claims", async () => {
    const repo = await setUp();
    await coord(repo, ['claim', 'bd-7', '--owner', 'alice']);
    await coord(repo, ['unclaim', 'bd-7', '--owner', 'alice']);
    expect(commit(repo, 'bd-7: last touch', { IC_OWNER: 'alice' }).ok).toBe(true);
    const later = commit(repo, 'bd-7: much later', { IC_OWNER: 'alice', IC_NOW: new Date(Date.now() + 2 * 3_600_000).toISOString() });
    expect(later.ok).toBe(false);
    await coord(repo, ['claim', 'bd-8', '--owner', 'claude-S/agent1']);
    expect(commit(repo, 'bd-8 by the session', { IC_OWNER: 'claude-S' }).ok).toBe(true);
  });

  it('takes a custom pattern, refuses one that cannot work, and chains an existing commit-msg hook', async () => {
    const repo = makeTempRepo('ic-gate-custom-');
    repos.push(repo);
    const hooks = join(repo.dir, '.git', 'hooks');
    writeFileSync(join(hooks, 'commit-msg'), '#!/bin/sh\nif grep -q nope "$1"; then echo "previous hook says no" >&2; exit 1; fi\n');
    chmodSync(join(hooks, 'commit-msg'), 0o755);
    const bad = await ic(repo, ['coord', 'install', '--git', '--commit-gate=(']);
    expect(bad.exitCode).toBe(65);
    expect(bad.json.error.message).toMatch(/--commit-gate "\(": not a usable item pattern/);
    expect((await ic(repo, ['coord', 'install', '--git', '--commit-gate=.*'])).exitCode).toBe(65);
    const installed = await ic(repo, ['coord', 'install', '--git', '--commit-gate=PROJ-[0-9]+']);
    expect(installed.json.changed.map((c: any) => c.action)).toContain('backed_up');
    expect(readFileSync(join(hooks, 'commit-msg'), 'utf8')).toContain("gate_pattern='PROJ-[0-9]+'");
    await coord(repo, ['claim', 'PROJ-4', '--owner', 'alice']);
    expect(commit(repo, 'PROJ-4: works', { IC_OWNER: 'alice' }).ok).toBe(true);
    const chained = commit(repo, 'PROJ-4: nope', { IC_OWNER: 'alice' });
    expect(chained.ok).toBe(false);
    expect(chained.stderr).toMatch(/previous hook says no/);
    expect((await ic(repo, ['coord', 'install', '--git', '--commit-gate=PROJ-[0-9]+'])).json.changed).toEqual([]);
    await ic(repo, ['coord', 'uninstall', '--git']);
    expect(readFileSync(join(hooks, 'commit-msg'), 'utf8')).toContain('previous hook says no');
  });

  it('finds the committing session by its process lineage, as the guard does: a Codex session without IC_OWNER commits the item it claimed; another session may not', async () => {
    const repo = await setUp();
    const codexPatch = (session: string, file: string) => ({
      session_id: session,
      cwd: repo.dir,
      hook_event_name: 'PreToolUse',
      tool_name: 'apply_patch',
      tool_input: { command: `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n` },
    });
    const gitCommit = (file: string, message: string) =>
      `echo ${JSON.stringify(message)} >> ${file} && git add ${file} && git -c user.email=t@example.com -c user.name=T commit -q -m ${JSON.stringify(message)}`;
    const codex = await startFakeClient(repo.dir);
    const other = await startFakeClient(repo.dir);
    clients.push(codex, other);
    expect((await codex.hook('codex-pre-edit', codexPatch('cx', 'work.txt'))).code).toBe(0);
    const claim = await codex.run(`'${IC_BIN}' coord claim bd-9`);
    expect(claim.json.locks[0]).toMatchObject({ owner: 'codex-cx', pattern: 'bd-9' });
    const committed = await codex.run(gitCommit('work.txt', 'bd-9: fix the parser'));
    expect(committed.stderr).toBe('');
    expect(committed.code).toBe(0);
    expect(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: repo.dir, encoding: 'utf8' })).toBe('bd-9: fix the parser\n');

    // A second session (its own lineage, no IC_OWNER) naming the same item is refused as itself.
    await other.hook('codex-pre-edit', codexPatch('cy', 'other.txt'));
    const refused = await other.run(gitCommit('other.txt', 'bd-9: not mine'));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('names bd-9, which codex-cy does not hold');
    expect(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: repo.dir, encoding: 'utf8' })).toBe('bd-9: fix the parser\n');
  });
});
