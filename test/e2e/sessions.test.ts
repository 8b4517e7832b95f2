// Session truth (issue #20, docs/sessions.md) through the real bin: hooks run as children of a stand-in
// agent client process (test/support/fake-client-process.mjs), exactly as Claude Code and Codex run them.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, dbEnv, ic, IC_BIN, makeTempRepo, type TempRepo } from '../support/cli';
import { startFakeClient, type FakeClient } from '../support/fake-client';

const repos: TempRepo[] = [];
const clients: FakeClient[] = [];
afterEach(async () => {
  while (clients.length) await clients.pop()!.kill('SIGKILL');
  while (repos.length) repos.pop()!.cleanup();
});

function repoWith(files: Record<string, string>): TempRepo {
  const repo = makeTempRepo('ic-sessions-');
  repos.push(repo);
  for (const [path, text] of Object.entries(files)) writeFileSync(join(repo.dir, path), text);
  execFileSync('git', ['-C', repo.dir, 'add', '-A']);
  execFileSync('git', ['-C', repo.dir, 'commit', '-q', '-m', 'init']);
  return repo;
}

async function client(repo: TempRepo, env: Record<string, string | undefined> = {}): Promise<FakeClient> {
  const started = await startFakeClient(repo.dir, env);
  clients.push(started);
  return started;
}

const T0 = Date.parse('2026-11-26T12:00:00.000Z');
const at = (minutes: number) => ({ IC_TEST_CLOCK: '1', IC_NOW: String(T0 + minutes * 60_000) });

const claudeEdit = (repo: TempRepo, session: string, file: string) => ({
  session_id: session,
  cwd: repo.dir,
  hook_event_name: 'PreToolUse',
  tool_name: 'Edit',
  tool_input: { file_path: join(repo.dir, file), old_string: 'a', new_string: 'b' },
  tool_use_id: `toolu_${file}`,
});
const claudeBash = (repo: TempRepo, session: string, command: string, timeout?: number) => ({
  session_id: session,
  cwd: repo.dir,
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command, ...(timeout !== undefined ? { timeout } : {}) },
});
const claudeStop = (repo: TempRepo, session: string) => ({ session_id: session, cwd: repo.dir, hook_event_name: 'Stop', transcript_path: '/nonexistent' });
const codexPatch = (repo: TempRepo, session: string, file: string) => ({
  session_id: session,
  cwd: repo.dir,
  hook_event_name: 'PreToolUse',
  tool_name: 'apply_patch',
  tool_input: { command: `*** Begin Patch\n*** Update File: ${file}\n@@\n-a\n+b\n*** End Patch\n` },
});
const denied = (reply: { stdout: string }) => (reply.stdout ? JSON.parse(reply.stdout).hookSpecificOutput?.permissionDecision === 'deny' : false);
const locksOf = async (repo: TempRepo, extra: Record<string, string> = {}) =>
  (await coord(repo, ['list', '--active'], { env: extra })).json.locks as { owner: string; pattern: string; expires_at: string }[];

describe('liveness: any hook activity of a session renews its locks', () => {
  it('a 17-minute test suite keeps the lock; the file is not taken mid-run', async () => {
    const repo = repoWith({ 'held.ts': 'a\n' });
    const a = await client(repo);
    const b = await client(repo);
    expect(denied(await a.hook('claude-pre-edit', claudeEdit(repo, 'A', 'held.ts'), at(0)))).toBe(false);
    // A runs its test suite: Bash with a 17-minute timeout (BASH_MAX_TIMEOUT_MS raised), at minute 1.
    expect((await a.hook('claude-pre-bash', claudeBash(repo, 'A', 'npm test', 17 * 60_000), at(1))).code).toBe(0);
    // Minute 17.5: past the 15-minute TTL of the edit, still inside the command. B's edit is refused.
    expect(denied(await b.hook('claude-pre-edit', claudeEdit(repo, 'B', 'held.ts'), at(17.5)))).toBe(true);
    const [lock] = await locksOf(repo, at(17.5));
    expect(lock).toMatchObject({ owner: 'claude-A', pattern: 'held.ts' });
    expect(Date.parse(lock!.expires_at)).toBeGreaterThanOrEqual(T0 + 18 * 60_000); // 1 + 17 minutes + the grace
    const log = (await coord(repo, ['events', '--limit', '100'], { env: at(17.5) })).json.events as { type: string; owner: string; reason: string | null }[];
    expect(log.some((e) => e.type === 'heartbeat' && e.owner === 'claude-A' && e.reason === 'shell command')).toBe(true);
  });

  it('a turn end (or any hook) renews; an idle session lapses after its TTL and another agent gets the file', async () => {
    const repo = repoWith({ 'held.ts': 'a\n' });
    const a = await client(repo);
    const b = await client(repo);
    await a.hook('claude-pre-edit', claudeEdit(repo, 'A', 'held.ts'), at(0));
    await a.hook('claude-turn-end', claudeStop(repo, 'A'), at(10)); // any hook naming the session: renewed to minute 25
    expect(denied(await b.hook('claude-pre-edit', claudeEdit(repo, 'B', 'held.ts'), at(20)))).toBe(true);
    // No activity since minute 10: the lock lapsed at minute 25 (and its 60 s lock-delay is over at 26).
    expect(denied(await b.hook('claude-pre-edit', claudeEdit(repo, 'B', 'held.ts'), at(26.5)))).toBe(false);
    expect((await locksOf(repo, at(26.5))).map((l) => l.owner)).toEqual(['claude-B']);
  });

  it('renewals are rate-limited: hooks within 10 s write one heartbeat', async () => {
    const repo = repoWith({ 'held.ts': 'a\n' });
    const a = await client(repo);
    await a.hook('claude-pre-edit', claudeEdit(repo, 'A', 'held.ts'), at(0));
    for (const seconds of [1, 2, 3, 4]) await a.hook('claude-turn-end', claudeStop(repo, 'A'), { IC_TEST_CLOCK: '1', IC_NOW: String(T0 + seconds * 1000) });
    const log = (await coord(repo, ['events', '--limit', '100'], { env: at(1) })).json.events as { type: string; owner: string }[];
    expect(log.filter((e) => e.type === 'heartbeat' && e.owner === 'claude-A').length).toBe(1);
  });
});

describe('one agent, one owner', () => {
  it('two concurrent runs of one Claude session id are two owners: the second cannot edit the first one’s file', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const first = await client(repo);
    const second = await client(repo);
    expect(denied(await first.hook('claude-pre-edit', claudeEdit(repo, 'S', 'a.ts')))).toBe(false);
    const refused = await second.hook('claude-pre-edit', claudeEdit(repo, 'S', 'a.ts'));
    expect(denied(refused)).toBe(true);
    expect(JSON.parse(refused.stdout).hookSpecificOutput.permissionDecisionReason).toContain('reserved by claude-S:');
    // The second run's own files are its own, under a distinct owner.
    await second.hook('claude-pre-edit', claudeEdit(repo, 'S', 'b.ts'));
    expect((await locksOf(repo)).map((l) => [l.owner, l.pattern])).toEqual([
      ['claude-S', 'a.ts'],
      [`claude-S~${second.pid}`, 'b.ts'],
    ]);
  });

  it('two Codex sessions started with one exported IC_OWNER are two owners', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const first = await client(repo, { IC_OWNER: 'shared' });
    const second = await client(repo, { IC_OWNER: 'shared' });
    expect(denied(await first.hook('codex-pre-edit', codexPatch(repo, 'one', 'a.ts')))).toBe(false);
    expect(denied(await second.hook('codex-pre-edit', codexPatch(repo, 'two', 'a.ts')))).toBe(true);
    expect((await locksOf(repo)).map((l) => l.owner)).toEqual(['shared']);
  });

  it('a resumed session (its first process gone) is the same owner again', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const first = await client(repo);
    await first.hook('claude-pre-edit', claudeEdit(repo, 'S', 'a.ts'));
    await first.kill('SIGTERM');
    const resumed = await client(repo);
    expect(denied(await resumed.hook('claude-pre-edit', claudeEdit(repo, 'S', 'a.ts')))).toBe(false);
    expect((await locksOf(repo)).map((l) => l.owner)).toEqual(['claude-S']);
  });

  it('Codex without IC_OWNER claims from its shell and commits its own patched file with the guard on', async () => {
    const repo = repoWith({ 'a.ts': 'a\n', 'other.ts': 'o\n' });
    expect((await coord(repo, ['install', '--git'])).exitCode).toBe(0);
    const codex = await client(repo);
    await codex.hook('codex-pre-edit', codexPatch(repo, 'cx', 'a.ts'));
    const claim = await codex.run(`'${IC_BIN}' coord claim bd-1`);
    expect(claim.code).toBe(0);
    expect(claim.json.locks[0]).toMatchObject({ owner: 'codex-cx', pattern: 'bd-1' });
    writeFileSync(join(repo.dir, 'a.ts'), 'b\n');
    const commit = await codex.run('git add a.ts && git -c user.email=t@example.com -c user.name=T commit -q -m "patch a"');
    expect(commit.stderr).toBe('');
    expect(commit.code).toBe(0);
    expect(execFileSync('git', ['-C', repo.dir, 'show', 'HEAD:a.ts'], { encoding: 'utf8' })).toBe('b\n');
  });

  it("the guard refuses another agent's file and says who, until when and what to do, never how to switch it off", async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    expect((await coord(repo, ['install', '--git'])).exitCode).toBe(0);
    expect((await coord(repo, ['reserve', 'a.ts', '--owner', 'holder'])).exitCode).toBe(0);
    const codex = await client(repo);
    await codex.hook('codex-pre-edit', codexPatch(repo, 'cx', 'other.ts'));
    writeFileSync(join(repo.dir, 'a.ts'), 'b\n');
    const commit = await codex.run('git add a.ts && git -c user.email=t@example.com -c user.name=T commit -q -m "take a"');
    expect(commit.code).not.toBe(0);
    expect(commit.stderr).toContain('held by holder');
    expect(commit.stderr).toContain('(you are codex-cx)');
    expect(commit.stderr).toContain('What to do: wait');
    expect(commit.stderr).toContain('--ask');
    expect(commit.stderr).not.toMatch(/IC_GUARD|--no-verify/);
  });
});

describe('dead clients', () => {
  it('a client killed with SIGTERM frees its locks at the next ic call, not at the TTL', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const codex = await client(repo);
    await codex.hook('codex-pre-edit', codexPatch(repo, 'cx', 'a.ts'));
    await codex.run(`'${IC_BIN}' coord claim bd-9`);
    expect((await locksOf(repo)).map((l) => l.pattern).sort()).toEqual(['a.ts', 'bd-9']);
    await codex.kill('SIGTERM');
    const next = await coord(repo, ['reserve', 'a.ts', '--owner', 'bob']);
    expect(next.exitCode).toBe(0);
    expect((await locksOf(repo)).map((l) => [l.owner, l.pattern])).toEqual([['bob', 'a.ts']]);
    const log = (await coord(repo, ['events', '--limit', '100'])).json.events as { type: string; owner: string; pattern: string; reason: string }[];
    expect(
      log
        .filter((e) => e.type === 'released' && e.owner === 'codex-cx')
        .map((e) => e.pattern)
        .sort(),
    ).toEqual(['a.ts', 'bd-9']);
    expect(log.find((e) => e.type === 'released' && e.owner === 'codex-cx')!.reason).toContain('client process');
  });
});

describe('hand-off that arrives', () => {
  it('claim --ask MESSAGE reaches the holder once, through additionalContext of its next hook; repeats are not sent twice', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const holder = await client(repo);
    await holder.hook('claude-pre-edit', claudeEdit(repo, 'H', 'a.ts'));
    expect((await holder.run(`'${IC_BIN}' coord claim bd-7`)).json.locks[0].owner).toBe('claude-H');
    for (let i = 0; i < 3; i++) {
      const ask = await coord(repo, ['claim', 'bd-7', '--ask', 'I need bd-7 for the release, please hand it over', '--owner', 'asker']);
      expect(ask.json.handoff_requested).toMatchObject({ holder: 'claude-H', message: 'I need bd-7 for the release, please hand it over', repeated: i > 0 });
    }
    const told = await holder.hook('claude-pre-edit', claudeEdit(repo, 'H', 'a.ts'));
    const context = JSON.parse(told.stdout).hookSpecificOutput;
    expect(context.hookEventName).toBe('PreToolUse');
    expect(context.permissionDecision).toBeUndefined();
    expect(context.additionalContext.match(/I need bd-7 for the release/g)).toHaveLength(1);
    expect(context.additionalContext).toContain('coord unclaim bd-7');
    expect((await holder.hook('claude-pre-edit', claudeEdit(repo, 'H', 'a.ts'))).stdout).toBe(''); // told once
  });

  it('many askers make a short message (capped at the 5 latest)', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const holder = await client(repo);
    await holder.hook('claude-pre-edit', claudeEdit(repo, 'H', 'a.ts'));
    await holder.run(`'${IC_BIN}' coord claim bd-8`);
    const script = Array.from({ length: 8 }, (_, i) => `'${IC_BIN}' coord claim bd-8 --ask "${'x'.repeat(400)} ${i}" --owner asker-${i} >/dev/null`).join('\n');
    writeFileSync(join(repo.dir, '.git', 'asks.sh'), script);
    execFileSync('sh', [join(repo.dir, '.git', 'asks.sh')], { cwd: repo.dir, env: { ...process.env, ...dbEnv(repo), IC_OWNER: '' } });
    const told = await holder.hook('claude-pre-edit', claudeEdit(repo, 'H', 'a.ts'));
    expect(told.stdout.length).toBeLessThan(3_000);
    const context = JSON.parse(told.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain('and 3 earlier requests');
    expect(context).toContain('asker-7');
    expect(context).not.toContain('asker-2 ');
    const who = await coord(repo, ['who']);
    expect(who.exitCode).toBe(0);
  }, 60_000);

  it('an --ask message is one line of at most 500 characters', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    await coord(repo, ['claim', 'bd-1', '--owner', 'h']);
    expect((await coord(repo, ['claim', 'bd-1', '--ask', 'y'.repeat(501), '--owner', 'a'])).exitCode).toBe(65);
    expect((await coord(repo, ['claim', 'bd-1', '--ask', 'two\nlines', '--owner', 'a'])).exitCode).toBe(65);
    expect((await coord(repo, ['claim', 'bd-1', '--ask', 'one line', '--owner', 'a'])).json.handoff_requested.message).toBe('one line');
  });
});

describe('no revert, even with --no-verify', () => {
  const gitIn = (repo: TempRepo, args: string[], env: Record<string, string> = {}) =>
    execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=T', ...args], {
      cwd: repo.dir,
      env: { ...process.env, IC_OWNER: '', ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it("a stale private index cannot commit another session's change back, through `bash -c 'git commit --no-verify'`", async () => {
    const repo = repoWith({ 'f.txt': 'v0\n', 'g.txt': 'g0\n' });
    expect((await coord(repo, ['install', '--git', '--git-index'])).exitCode).toBe(0);
    const index = (await coord(repo, ['hook', 'git-index-path'], { env: { IC_OWNER: 'A' } })).stdout.trim();
    // B commits f.txt from the shared index; A's private index still holds f.txt at v0.
    writeFileSync(join(repo.dir, 'f.txt'), 'v1 by B\n');
    gitIn(repo, ['commit', '-q', '-am', 'B changes f'], { IC_OWNER: 'B' });
    expect(gitIn(repo, ['show', ':f.txt'], { GIT_INDEX_FILE: index })).toBe('v0\n'); // the stale entry a commit would put back
    writeFileSync(join(repo.dir, 'g.txt'), 'g1 by A\n');
    gitIn(repo, ['add', 'g.txt'], { GIT_INDEX_FILE: index });
    const head = gitIn(repo, ['rev-parse', 'HEAD']);
    let refused = '';
    try {
      execFileSync('bash', ['-c', "git -c user.email=a@example.com -c user.name=A commit --no-verify -q -m 'A commits g'"], {
        cwd: repo.dir,
        env: { ...process.env, IC_OWNER: 'A', GIT_INDEX_FILE: index },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      refused = String((error as { stderr?: unknown }).stderr);
    }
    expect(refused).toContain('would put back the old content of');
    expect(refused).toContain('f.txt');
    expect(gitIn(repo, ['rev-parse', 'HEAD'])).toBe(head);
    expect(gitIn(repo, ['show', 'HEAD:f.txt'])).toBe('v1 by B\n');
    // Through the guard (no --no-verify) the index is brought onto HEAD first: A's commit lands, B's change stays.
    gitIn(repo, ['commit', '-q', '-m', 'A commits g'], { IC_OWNER: 'A', GIT_INDEX_FILE: index });
    expect(gitIn(repo, ['show', 'HEAD:f.txt'])).toBe('v1 by B\n');
    expect(gitIn(repo, ['show', 'HEAD:g.txt'])).toBe('g1 by A\n');
  });
});

describe('shared installs on a machine without ic', () => {
  it('the committed hooks refuse edits and say why at session start, instead of failing open; with ic on PATH they run it', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    expect((await coord(repo, ['install', '--claude', '--codex', '--shared', '--no-trust'])).exitCode).toBe(0);
    const settings = JSON.parse(readFileSync(join(repo.dir, '.claude', 'settings.json'), 'utf8'));
    const preEdit = settings.hooks.PreToolUse.find((g: any) => g.hooks[0].command.includes('claude-pre-edit')).hooks[0].command as string;
    const start = settings.hooks.SessionStart.find((g: any) => g.hooks[0].command.includes('claude-session-start')).hooks[0].command as string;
    const codexPre = JSON.parse(readFileSync(join(repo.dir, '.codex', 'hooks.json'), 'utf8')).hooks.PreToolUse[0].hooks[0].command as string;
    const noIc = { ...process.env, PATH: '/usr/bin:/bin' };
    const runHookCommand = (command: string, payload: unknown, env: NodeJS.ProcessEnv) => execFileSync('sh', ['-c', command], { cwd: repo.dir, env, input: JSON.stringify(payload), encoding: 'utf8' });
    for (const command of [preEdit, codexPre]) {
      const reply = JSON.parse(runHookCommand(command, claudeEdit(repo, 'S', 'a.ts'), noIc));
      expect(reply.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(reply.hookSpecificOutput.permissionDecisionReason).toContain('ic is not installed on this machine');
    }
    expect(JSON.parse(runHookCommand(start, { session_id: 'S', cwd: repo.dir }, noIc)).hookSpecificOutput.additionalContext).toContain('ic is not installed');
    // With ic on PATH the same command is ic's hook: the edit is reserved and allowed.
    const bin = join(repo.dir, '.git', 'bin');
    execFileSync('mkdir', ['-p', bin]);
    execFileSync('ln', ['-s', IC_BIN, join(bin, 'ic')]);
    expect(runHookCommand(preEdit, claudeEdit(repo, 'S', 'a.ts'), { ...process.env, ...dbEnv(repo), PATH: `${bin}:${process.env.PATH}`, IC_OWNER: '' })).toBe('');
    expect((await locksOf(repo)).map((l) => l.pattern)).toEqual(['a.ts']);
  });
});

describe('worktrees', () => {
  it('a linked worktree created after install gets the agent hooks (Codex trust too); doctor there says which are active', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const codexHome = join(repo.dir, '.git', 'codex-home');
    execFileSync('mkdir', ['-p', codexHome]);
    expect((await coord(repo, ['install', '--claude', '--codex', '--git', '--trust'], { env: { CODEX_HOME: codexHome } })).exitCode).toBe(0);
    const linked = `${repo.dir}-linked`;
    repos.push({ dir: linked, db: '', cleanup: () => execFileSync('rm', ['-rf', linked]) });
    execFileSync('git', ['-C', repo.dir, 'worktree', 'add', '-q', linked], { env: { ...process.env, CODEX_HOME: codexHome }, stdio: 'pipe' });
    const settings = JSON.parse(readFileSync(join(linked, '.claude', 'settings.local.json'), 'utf8'));
    expect(settings.hooks.PreToolUse.some((g: any) => g.hooks[0].command.includes('coord hook claude-pre-edit '))).toBe(true);
    const codexHooks = readFileSync(join(linked, '.codex', 'hooks.json'), 'utf8');
    expect(codexHooks).toContain('coord hook codex-pre-edit');
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toContain(`${linked}/.codex/hooks.json:pre_tool_use`);
    const doctor = await ic(repo, ['doctor'], { cwd: linked, env: { CODEX_HOME: codexHome } });
    expect(doctor.json.checks.find((c: any) => c.name === 'agent_hooks')).toMatchObject({ ok: true, detail: expect.stringContaining('Claude Code, Codex') });
    // File locks are per work tree: another agent's lock in the linked worktree binds an edit hook there.
    await coord(repo, ['reserve', 'a.ts', '--owner', 'other-agent'], { cwd: linked });
    const reply = await coord(repo, ['hook', 'claude-pre-edit'], { cwd: linked, input: JSON.stringify(claudeEdit({ dir: linked, db: '', cleanup: () => {} }, 'W', 'a.ts')) });
    expect(denied(reply)).toBe(true);
  });

  it('doctor in a linked worktree without the hooks its main work tree has says so', async () => {
    const repo = repoWith({ 'a.ts': 'a\n' });
    const linked = `${repo.dir}-old`;
    repos.push({ dir: linked, db: '', cleanup: () => execFileSync('rm', ['-rf', linked]) });
    execFileSync('git', ['-C', repo.dir, 'worktree', 'add', '-q', linked], { stdio: 'pipe' }); // before install: no post-checkout yet
    expect((await coord(repo, ['install', '--claude'])).exitCode).toBe(0);
    const doctor = await ic(repo, ['doctor'], { cwd: linked });
    expect(doctor.json.checks.find((c: any) => c.name === 'agent_hooks')).toMatchObject({ ok: false, detail: expect.stringContaining('has Claude Code hooks this linked worktree lacks') });
  });
});
