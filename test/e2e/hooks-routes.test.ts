import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { sqliteOnly } from '../support/engine';

// The ways an agent could route around the hooks (issue: real clients), one payload at a time through the
// real bin; test/clients proves the same with the real Claude Code and Codex binaries.
const repos: TempRepo[] = [];
const dirs: string[] = [];
afterEach(() => {
  while (repos.length) repos.pop()!.cleanup();
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});
function repo(): TempRepo {
  const r = makeTempRepo('ic-routes-');
  repos.push(r);
  return r;
}
function elsewhere(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ic-elsewhere-')));
  dirs.push(dir);
  return dir;
}

interface Edit {
  session: string;
  file: string;
  cwd: string;
  agent?: string;
  toolUseId?: string;
  event?: string;
}
const payload = (e: Edit) =>
  JSON.stringify({
    session_id: e.session,
    cwd: e.cwd,
    hook_event_name: e.event ?? 'PreToolUse',
    tool_name: 'Edit',
    tool_input: { file_path: e.file, old_string: 'a', new_string: 'b' },
    ...(e.toolUseId ? { tool_use_id: e.toolUseId } : {}),
    ...(e.agent ? { agent_id: e.agent } : {}),
  });
const hook = (r: TempRepo, name: string, input: string, options: { cwd?: string; env?: Record<string, string> } = {}) => ic(r, ['coord', 'hook', name], { input, cwd: options.cwd, env: options.env });
const denied = (result: { json: any }) => result.json?.hookSpecificOutput?.permissionDecision === 'deny';
const active = async (r: TempRepo) => (await coord(r, ['list', '--active'])).json.locks.map((l: any) => [l.owner, l.pattern]).sort();

describe('the project is the repository that contains the edited file', () => {
  it("a held file is denied whatever the payload cwd, CLAUDE_PROJECT_DIR or the hook's own cwd", async () => {
    const r = repo();
    const away = elsewhere();
    await coord(r, ['reserve', 'held.ts', '--owner', 'alice']);
    const file = join(r.dir, 'held.ts');
    expect(denied(await hook(r, 'claude-pre-edit', payload({ session: 's1', file, cwd: away }), { cwd: away }))).toBe(true);
    expect(denied(await hook(r, 'claude-pre-edit', payload({ session: 's1', file, cwd: away }), { cwd: away, env: { CLAUDE_PROJECT_DIR: away } }))).toBe(true);
    // A file that does not exist yet, in a directory that does not exist yet, is still the repository's.
    await coord(r, ['reserve', 'new/dir/**', '--owner', 'alice']);
    expect(denied(await hook(r, 'claude-pre-edit', payload({ session: 's1', file: join(r.dir, 'new', 'dir', 'x.ts'), cwd: away }), { cwd: away }))).toBe(true);
  });

  it('relative paths are read from the payload cwd, else CLAUDE_PROJECT_DIR', async () => {
    const r = repo();
    mkdirSync(join(r.dir, 'sub'));
    await coord(r, ['reserve', 'sub/held.ts', '--owner', 'alice']);
    expect(denied(await hook(r, 'claude-pre-edit', payload({ session: 's1', file: 'held.ts', cwd: join(r.dir, 'sub') })))).toBe(true);
    const noCwd = JSON.stringify({ session_id: 's1', tool_name: 'Edit', tool_input: { file_path: 'sub/held.ts' } });
    expect(denied(await hook(r, 'claude-pre-edit', noCwd, { cwd: elsewhere(), env: { CLAUDE_PROJECT_DIR: r.dir } }))).toBe(true);
  });

  // SQLite's database is a file per repository; on a server one URL serves every repository, each its own scope.
  sqliteOnly.it("a file in a second repository is coordinated in that repository's database", async () => {
    const a = repo();
    const b = repo();
    writeFileSync(join(b.dir, 'b.ts'), 'x');
    const result = await hook(a, 'claude-pre-edit', payload({ session: 's1', file: join(b.dir, 'b.ts'), cwd: a.dir }), { env: { CLAUDE_PROJECT_DIR: a.dir } });
    expect(result).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await active(b)).toEqual([['claude-s1', 'b.ts']]);
    expect(await active(a)).toEqual([]);
  });

  it("a file in no repository and outside the agent's project is allowed without a database", async () => {
    const r = repo();
    const away = elsewhere();
    const result = await hook(r, 'claude-pre-edit', payload({ session: 's1', file: join(away, 'notes.txt'), cwd: r.dir }), { env: { CLAUDE_PROJECT_DIR: r.dir } });
    expect(result).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await active(r)).toEqual([]);
  });
});

describe('subagents: claude-<session>/<agent_id>', () => {
  it("parallel subagents conflict; a subagent takes over its session's lock; SubagentStop hands back; SessionEnd releases all", async () => {
    const r = repo();
    const file = (name: string) => join(r.dir, name);
    expect(await hook(r, 'claude-pre-edit', payload({ session: 's1', file: file('x.ts'), cwd: r.dir }))).toMatchObject({ stdout: '' });
    // The first subagent takes the session's own lock over, silently and without a conflict event.
    expect(await hook(r, 'claude-pre-edit', payload({ session: 's1', agent: 'a1', file: file('x.ts'), cwd: r.dir }))).toMatchObject({ stdout: '' });
    expect(await active(r)).toEqual([['claude-s1/a1', 'x.ts']]);
    // Its sibling is another owner.
    const sibling = await hook(r, 'claude-pre-edit', payload({ session: 's1', agent: 'a2', file: file('x.ts'), cwd: r.dir }));
    expect(denied(sibling)).toBe(true);
    expect(sibling.json.hookSpecificOutput.permissionDecisionReason).toContain('claude-s1/a1');
    expect(await hook(r, 'claude-pre-edit', payload({ session: 's1', agent: 'a2', file: file('y.ts'), cwd: r.dir }))).toMatchObject({ stdout: '' });
    // Another session is refused by the subagent's lock like by any other.
    expect(denied(await hook(r, 'claude-pre-edit', payload({ session: 's2', file: file('y.ts'), cwd: r.dir })))).toBe(true);
    const events = (await coord(r, ['events'])).json.events;
    expect(events.filter((e: any) => e.type === 'conflict').map((e: any) => e.owner)).toEqual(['claude-s1/a2', 'claude-s2']);
    // a1 finishes: what it holds passes to the session.
    await hook(r, 'claude-subagent-stop', JSON.stringify({ session_id: 's1', agent_id: 'a1', cwd: r.dir, hook_event_name: 'SubagentStop' }));
    expect(await active(r)).toEqual([
      ['claude-s1', 'x.ts'],
      ['claude-s1/a2', 'y.ts'],
    ]);
    const end = await hook(r, 'claude-session-end', JSON.stringify({ session_id: 's1', cwd: r.dir, hook_event_name: 'SessionEnd' }));
    expect(end.stderr).toContain('released 2 locks');
    expect(await active(r)).toEqual([]);
  });

  it('the commit guard counts a session and its subagents as one owner', async () => {
    const r = repo();
    await coord(r, ['reserve', 'g.ts', '--owner', 'claude-s1/a1']);
    writeFileSync(join(r.dir, 'g.ts'), 'x');
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['-C', r.dir, 'add', 'g.ts']);
    expect((await ic(r, ['coord', 'hook', 'git-pre-commit'], { env: { IC_OWNER: 'claude-s1' } })).exitCode).toBe(0);
    expect((await ic(r, ['coord', 'hook', 'git-pre-commit'], { env: { IC_OWNER: 'claude-s2' } })).exitCode).toBe(1);
  });
});

describe('a refused edit gives back what it took', () => {
  it('PostToolUseFailure / PermissionDenied release the lock that very call created, not one it renewed', async () => {
    const r = repo();
    const file = join(r.dir, 'r.ts');
    await hook(r, 'claude-pre-edit', payload({ session: 's1', file, cwd: r.dir, toolUseId: 't1' }));
    await hook(r, 'claude-pre-edit', payload({ session: 's1', file, cwd: r.dir, toolUseId: 't2' }));
    // t2 only renewed: its failure leaves t1's lock alone.
    expect(await hook(r, 'claude-edit-refused', payload({ session: 's1', file, cwd: r.dir, toolUseId: 't2', event: 'PostToolUseFailure' }))).toMatchObject({ exitCode: 0, stderr: '' });
    expect(await active(r)).toEqual([['claude-s1', 'r.ts']]);
    const released = await hook(r, 'claude-edit-refused', payload({ session: 's1', file, cwd: r.dir, toolUseId: 't1', event: 'PermissionDenied' }));
    expect(released.stderr).toContain('released 1 lock');
    expect(await active(r)).toEqual([]);
  });

  it('Stop releases locks whose tool call ended in an error in the transcript', async () => {
    const r = repo();
    const away = elsewhere();
    await hook(r, 'claude-pre-edit', payload({ session: 's1', file: join(r.dir, 'ok.ts'), cwd: r.dir, toolUseId: 'ok1' }));
    await hook(r, 'claude-pre-edit', payload({ session: 's1', file: join(r.dir, 'no.ts'), cwd: r.dir, toolUseId: 'no1' }));
    const transcript = join(away, 's1.jsonl');
    const line = (id: string, isError: boolean) =>
      JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x', ...(isError ? { is_error: true } : {}) }] } });
    writeFileSync(transcript, `${line('ok1', false)}\n${line('no1', true)}\n`);
    await hook(r, 'claude-turn-end', JSON.stringify({ session_id: 's1', cwd: r.dir, transcript_path: transcript, hook_event_name: 'Stop' }));
    expect(await active(r)).toEqual([['claude-s1', 'ok.ts']]);
  });
});
