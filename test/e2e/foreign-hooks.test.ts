import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { startFakeClient, type FakeClient } from '../support/fake-client';

// A hook file another client runs: Copilot CLI runs the Claude Code hooks of .claude/ with Claude-shaped
// input. A client process named `copilot` (as Copilot's own binary is) runs `ic coord hook claude-…`, as it
// does; ic must act as that Copilot session, never as a second owner `claude-<same session>`.

const repos: TempRepo[] = [];
const clients: FakeClient[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.kill();
  for (const repo of repos.splice(0)) repo.cleanup();
});

async function repoWith(install: string[]): Promise<TempRepo> {
  const repo = makeTempRepo('ic-foreign-');
  repos.push(repo);
  writeFileSync(join(repo.dir, 'a.txt'), 'a\n');
  execFileSync('git', ['-C', repo.dir, 'add', '-A']);
  execFileSync('git', ['-C', repo.dir, 'commit', '-q', '-m', 'init']);
  expect((await coord(repo, ['install', ...install])).exitCode).toBe(0);
  return repo;
}

async function copilot(repo: TempRepo): Promise<FakeClient> {
  const client = await startFakeClient(repo.dir, {}, { argv0: 'copilot' });
  clients.push(client);
  return client;
}

// What Copilot 1.0.102 sends the hooks of .claude/settings*.json (field trial, docs/agents.md).
const claudeShaped = (repo: TempRepo, session: string, tool: 'Bash' | 'Edit', input: Record<string, unknown>, event = 'PreToolUse') => ({
  hook_event_name: event,
  session_id: session,
  timestamp: '2026-11-27T14:41:52.530Z',
  cwd: repo.dir,
  tool_name: tool,
  tool_input: input,
});
const ownShaped = (repo: TempRepo, session: string, toolName: string, toolArgs: Record<string, unknown>) => ({ sessionId: session, timestamp: 1, cwd: repo.dir, toolName, toolArgs });
const denied = (reply: { stdout: string }) => reply.stdout.includes('"deny"');
const owners = async (repo: TempRepo) => ((await coord(repo, ['list', '--active'])).json.locks as { owner: string; pattern: string }[]).map((l) => `${l.owner} ${l.pattern}`);

describe('Copilot CLI running the Claude Code hooks', () => {
  it("with Copilot's own hooks installed too, the Claude hooks step aside: its own shell write to its held file is allowed; another Copilot session is refused", async () => {
    const repo = await repoWith(['--claude', '--copilot']);
    const s = await copilot(repo);
    const edit = ownShaped(repo, 'S', 'edit', { path: join(repo.dir, 'a.txt'), old_str: 'a', new_str: 'b' });
    expect(denied(await s.hook('copilot-pre-tool', edit))).toBe(false);
    expect(await owners(repo)).toEqual(['copilot-S a.txt']);
    // Copilot then runs the Claude hooks for the same calls: nothing refused, nothing reserved twice.
    const shell = { command: 'echo mine > a.txt' };
    expect(denied(await s.hook('claude-pre-edit', claudeShaped(repo, 'S', 'Edit', { path: join(repo.dir, 'a.txt'), old_str: 'a', new_str: 'b' })))).toBe(false);
    expect(denied(await s.hook('copilot-pre-tool', ownShaped(repo, 'S', 'bash', shell)))).toBe(false);
    const viaClaude = await s.hook('claude-pre-shell', claudeShaped(repo, 'S', 'Bash', shell));
    expect(viaClaude.stdout).toBe('');
    expect(viaClaude.code).toBe(0);
    expect(await owners(repo)).toEqual(['copilot-S a.txt']);
    const who = (await coord(repo, ['who'])).stdout;
    expect(who).not.toContain('claude-S');

    const t = await copilot(repo);
    expect(denied(await t.hook('copilot-pre-tool', ownShaped(repo, 'T', 'bash', { command: 'echo theirs > a.txt' })))).toBe(true);

    // doctor says which hooks each client runs.
    const doctor = (await ic(repo, ['doctor'])).json.checks.find((c: any) => c.name === 'copilot_claude_hooks');
    expect(doctor).toMatchObject({ ok: true });
    expect(doctor.detail).toMatch(/Copilot CLI runs \.github\/hooks\/ic\.json and those Claude hooks too/);
  });

  it('with only the Claude hooks installed, they act as the Copilot session: its edit reserves as copilot-S, its own shell write passes, another session is refused, session end releases', async () => {
    const repo = await repoWith(['--claude']);
    const s = await copilot(repo);
    const edit = await s.hook('claude-pre-edit', claudeShaped(repo, 'S', 'Edit', { path: join(repo.dir, 'a.txt'), old_str: 'a', new_str: 'b' }));
    expect(denied(edit)).toBe(false);
    expect(await owners(repo)).toEqual(['copilot-S a.txt']);
    expect(denied(await s.hook('claude-pre-shell', claudeShaped(repo, 'S', 'Bash', { command: 'echo mine > a.txt' })))).toBe(false);

    const t = await copilot(repo);
    const refused = await t.hook('claude-pre-shell', claudeShaped(repo, 'T', 'Bash', { command: 'echo theirs > a.txt' }));
    expect(denied(refused)).toBe(true);
    expect(JSON.parse(refused.stdout).hookSpecificOutput.permissionDecisionReason).toContain('copilot-S');
    const write = await t.hook('claude-pre-edit', claudeShaped(repo, 'T', 'Edit', { path: join(repo.dir, 'a.txt'), file_text: 'theirs\n' }));
    expect(denied(write)).toBe(true);

    await s.hook('claude-session-end', { hook_event_name: 'SessionEnd', session_id: 'S', timestamp: '2026-11-27T14:42:02.296Z', cwd: repo.dir, reason: 'complete' });
    expect(await owners(repo)).toEqual([]);
  });

  it('a Claude Code process running the same hooks stays claude-<session>', async () => {
    const repo = await repoWith(['--claude', '--copilot']);
    const claude = await startFakeClient(repo.dir, {}, { argv0: 'claude' });
    clients.push(claude);
    const payload = {
      hook_event_name: 'PreToolUse',
      session_id: 'C',
      transcript_path: '/nonexistent',
      cwd: repo.dir,
      tool_name: 'Edit',
      tool_input: { file_path: join(repo.dir, 'a.txt'), old_string: 'a', new_string: 'b' },
    };
    expect(denied(await claude.hook('claude-pre-edit', payload))).toBe(false);
    expect(await owners(repo)).toEqual(['claude-C a.txt']);
  });
});
