import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

// The hooks of the adapted clients (src/hooks/agents) through the real bin, with payloads in each client's
// own shape (as Gemini CLI 0.61, Copilot CLI 1.0.102 and ic's OpenCode plugin send them).

let repo: TempRepo;
beforeEach(() => {
  repo = makeTempRepo('ic-hooks-agents-');
  writeFileSync(join(repo.dir, 'a.txt'), 'alpha\n');
});
afterEach(() => repo.cleanup());

const hook = (name: string, payload: unknown) => ic(repo, ['coord', 'hook', name], { input: typeof payload === 'string' ? payload : JSON.stringify(payload) });
const gemini = (session: string, tool_name: string, tool_input: unknown) => ({ session_id: session, cwd: repo.dir, hook_event_name: 'BeforeTool', tool_name, tool_input });
const copilot = (session: string, toolName: string, toolArgs: unknown) => ({ sessionId: session, cwd: repo.dir, timestamp: 1, toolName, toolArgs });
const opencode = (session: string, tool: string, args: unknown) => ({ session_id: session, call_id: 'call_1', cwd: repo.dir, tool, args });
const owners = async () => (await coord(repo, ['list', '--active'])).json.locks.map((l: any) => [l.owner, l.pattern]);

describe('agent adapters: Gemini CLI, Copilot CLI, OpenCode', () => {
  it("Gemini: write_file with a relative path reserves for gemini-<session>; another session is denied in Gemini's format; SessionEnd releases", async () => {
    expect(await hook('gemini-pre-tool', gemini('g1', 'write_file', { file_path: 'a.txt', content: 'x' }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await owners()).toEqual([['gemini-g1', 'a.txt']]);
    const denied = await hook('gemini-pre-tool', gemini('g2', 'replace', { file_path: join(repo.dir, 'a.txt'), old_string: 'a', new_string: 'b' }));
    expect(denied.exitCode).toBe(0);
    expect(denied.json).toMatchObject({ decision: 'deny' });
    expect(denied.json.reason).toContain('ic: another agent is working on this file');
    expect(denied.json.reason).toContain('reserved by gemini-g1');
    const end = await hook('gemini-session-end', { session_id: 'g1', cwd: repo.dir, hook_event_name: 'SessionEnd', reason: 'exit' });
    expect(end).toMatchObject({ exitCode: 0, stdout: '', stderr: 'ic: released 1 lock of gemini-g1' });
    expect(await owners()).toEqual([]);
  });

  it("Copilot: create and edit reserve for copilot-<session>; a deny is Copilot's permissionDecision; sessionEnd releases", async () => {
    expect(await hook('copilot-pre-tool', copilot('c1', 'create', { path: join(repo.dir, 'new.txt'), file_text: 'x' }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook('copilot-pre-tool', copilot('c1', 'edit', { path: join(repo.dir, 'a.txt'), old_str: 'a', new_str: 'b' }))).toMatchObject({ exitCode: 0, stdout: '' });
    const denied = await hook('copilot-pre-tool', copilot('c2', 'edit', { path: join(repo.dir, 'a.txt'), old_str: 'a', new_str: 'b' }));
    expect(denied.json).toMatchObject({ permissionDecision: 'deny' });
    expect(denied.json.permissionDecisionReason).toContain('reserved by copilot-c1');
    expect(await hook('copilot-session-end', { sessionId: 'c1', cwd: repo.dir, timestamp: 1, reason: 'complete' })).toMatchObject({ exitCode: 0, stderr: 'ic: released 2 locks of copilot-c1' });
    expect(await owners()).toEqual([]);
  });

  it('OpenCode: write, edit and every file of an apply_patch reserve for opencode-<session>; a deny is the plugin\'s {"decision":"deny"}', async () => {
    const patch = '*** Begin Patch\n*** Add File: b.txt\n+b\n*** Update File: c.txt\n@@\n-c\n+d\n*** End Patch';
    expect(await hook('opencode-pre-tool', opencode('ses_1', 'apply_patch', { patchText: patch }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook('opencode-pre-tool', opencode('ses_1', 'edit', { filePath: 'a.txt', oldString: 'a', newString: 'b' }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await owners()).sort()).toEqual([
      ['opencode-ses_1', 'a.txt'],
      ['opencode-ses_1', 'b.txt'],
      ['opencode-ses_1', 'c.txt'],
    ]);
    const denied = await hook('opencode-pre-tool', opencode('ses_2', 'write', { filePath: join(repo.dir, 'c.txt'), content: 'x' }));
    expect(denied.json).toMatchObject({ decision: 'deny' });
    expect(denied.json.reason).toContain('reserved by opencode-ses_1');
    expect(await hook('opencode-session-end', { session_id: 'ses_1', cwd: repo.dir })).toMatchObject({ exitCode: 0, stderr: 'ic: released 3 locks of opencode-ses_1' });
  });

  it('cross-client: a file Claude holds is denied to Gemini, Copilot and OpenCode, and a file they hold is denied to Claude', async () => {
    const claudeEdit = (session: string, file: string) => ({
      session_id: session,
      cwd: repo.dir,
      hook_event_name: 'PreToolUse',
      tool_name: 'Edit',
      tool_input: { file_path: join(repo.dir, file), old_string: 'a', new_string: 'b' },
    });
    expect(await hook('claude-pre-edit', claudeEdit('k1', 'a.txt'))).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await hook('gemini-pre-tool', gemini('g1', 'write_file', { file_path: 'a.txt', content: 'x' }))).json.reason).toContain('reserved by claude-k1');
    expect((await hook('copilot-pre-tool', copilot('c1', 'edit', { path: join(repo.dir, 'a.txt') }))).json.permissionDecisionReason).toContain('reserved by claude-k1');
    expect((await hook('opencode-pre-tool', opencode('o1', 'write', { filePath: 'a.txt', content: 'x' }))).json.reason).toContain('reserved by claude-k1');
    for (const [name, payload, file] of [
      ['gemini-pre-tool', gemini('g1', 'write_file', { file_path: 'g.txt', content: 'x' }), 'g.txt'],
      ['copilot-pre-tool', copilot('c1', 'create', { path: join(repo.dir, 'c.txt'), file_text: 'x' }), 'c.txt'],
      ['opencode-pre-tool', opencode('o1', 'write', { filePath: 'o.txt', content: 'x' }), 'o.txt'],
    ] as const) {
      expect(await hook(name, payload)).toMatchObject({ exitCode: 0, stdout: '' });
      const denied = await hook('claude-pre-edit', claudeEdit('k1', file));
      expect(denied.json.hookSpecificOutput).toMatchObject({ permissionDecision: 'deny' });
      expect(denied.json.hookSpecificOutput.permissionDecisionReason).toContain(`reserved by ${name.split('-')[0]}-`);
    }
  });

  it('other tools, shell commands that write nothing held, and bad input never block and never open the database for nothing', async () => {
    expect(await hook('gemini-pre-tool', gemini('g1', 'read_file', { file_path: 'a.txt' }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook('copilot-pre-tool', copilot('c1', 'view', { path: 'a.txt' }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook('opencode-pre-tool', opencode('o1', 'read', { filePath: 'a.txt' }))).toMatchObject({ exitCode: 0, stdout: '' });
    expect(await hook('gemini-pre-tool', gemini('g1', 'run_shell_command', { command: 'ls' }))).toMatchObject({ exitCode: 0, stdout: '' });
    for (const input of ['', 'not json', '{}', JSON.stringify({ tool_name: 'write_file', tool_input: {} })]) {
      const result = await hook('gemini-pre-tool', input);
      expect(result.exitCode).toBe(0);
      expect(result.json.systemMessage).toMatch(/^ic: tool call not checked/);
    }
    const copilotBad = await hook('copilot-pre-tool', JSON.stringify({ toolName: 'edit', toolArgs: {} }));
    expect(copilotBad).toMatchObject({ exitCode: 0, stdout: '' });
    expect(copilotBad.stderr).toMatch(/^ic: tool call not checked/);
    expect(await owners()).toEqual([]);
    expect(readFileSync(join(repo.dir, 'a.txt'), 'utf8')).toBe('alpha\n');
  });
});
