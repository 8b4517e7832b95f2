import { describe, expect, it } from 'vitest';
import { clineAdapter } from '../../src/hooks/agents/cline';
import { piAdapter } from '../../src/hooks/agents/pi';

// The pi and Cline adapters read their clients' payloads as the real binaries send them (pi 0.73.1 through
// ic's extension, Cline CLI 3.0.65's hook files; test/clients/*.real.ts run them) and answer in their formats.

const DENY = { kind: 'deny', reason: 'ic: another agent is working on this file' } as const;

describe('pi adapter', () => {
  const call = (tool: string, input: unknown) => ({ session_id: '01a21d77-1fd7-77da-b3d1-3acb47a5f346', call_id: 'call_1', cwd: '/w/repo', tool, input });

  it('reads session, cwd and call id from the extension', () => {
    expect(piAdapter.session(call('write', {}), {})).toEqual({ sessionId: '01a21d77-1fd7-77da-b3d1-3acb47a5f346', cwd: '/w/repo', callId: 'call_1' });
  });

  it('write and edit are edits of input.path (a leading @ dropped, as pi does); bash is a shell command with its timeout in ms', () => {
    expect(piAdapter.toolCall(call('write', { path: 'a.txt', content: 'x' }))).toEqual({ kind: 'edit', paths: ['a.txt'] });
    expect(piAdapter.toolCall(call('edit', { path: '@src/b.ts', edits: [{ oldText: 'a', newText: 'b' }] }))).toEqual({ kind: 'edit', paths: ['src/b.ts'] });
    expect(piAdapter.toolCall(call('bash', { command: 'make', timeout: 90 }))).toEqual({ kind: 'shell', command: 'make', timeoutMs: 90_000 });
    expect(piAdapter.toolCall(call('bash', { command: 'ls' }))).toEqual({ kind: 'shell', command: 'ls' });
    expect(piAdapter.toolCall(call('read', { path: 'a.txt' }))).toEqual({ kind: 'other' });
  });

  it('malformed calls are named, not guessed', () => {
    expect(piAdapter.toolCall(call('write', { content: 'x' }))).toMatchObject({ kind: 'malformed', problem: 'the write call has no input.path' });
    expect(piAdapter.toolCall(call('bash', {}))).toMatchObject({ kind: 'malformed' });
    expect(piAdapter.toolCall({ session_id: 's' })).toMatchObject({ kind: 'malformed', problem: 'the extension input has no tool' });
  });

  it("answers in the extension's format: a deny with its reason, a notice as systemMessage, nothing when allowed", () => {
    expect(JSON.parse(piAdapter.beforeToolReply(DENY).stdout)).toEqual({ decision: 'deny', reason: DENY.reason });
    expect(piAdapter.beforeToolReply({ kind: 'allow' })).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(JSON.parse(piAdapter.afterToolReply('ic: put back').stdout)).toEqual({ systemMessage: 'ic: put back' });
  });
});

describe('Cline adapter', () => {
  // The shape Cline CLI 3.0.65 sends its PreToolUse file (seen in a trial run).
  const pre = (name: string, input: unknown) => ({
    clineVersion: '',
    hookName: 'tool_call',
    taskId: 'conv_1795790976572_0np49ow',
    sessionContext: { rootSessionId: '1795790972386_4tjf9' },
    workspaceRoots: ['/w/repo'],
    workspaceInfo: { rootPath: '/w/repo', hint: 'repo' },
    agent_id: 'agent_1',
    parent_agent_id: null,
    iteration: 1,
    tool_call: { id: 'call_T_0_0', name, input },
    preToolUse: { toolName: name, parameters: Object.fromEntries(Object.entries(input as object).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])) },
  });

  it('the session is the root session id (else the task id); cwd the first workspace root; the call id from tool_call or tool_result', () => {
    expect(clineAdapter.session(pre('editor', { path: 'a.txt' }), {})).toEqual({ sessionId: '1795790972386_4tjf9', cwd: '/w/repo', callId: 'call_T_0_0' });
    expect(clineAdapter.session({ taskId: 'conv_1', workspaceInfo: { rootPath: '/w/x' } }, {})).toMatchObject({ sessionId: 'conv_1', cwd: '/w/x' });
    expect(clineAdapter.session({ taskId: 'conv_1', tool_result: { id: 'c2', name: 'editor', input: {} } }, {}).callId).toBe('c2');
  });

  it('editor and apply_patch are edits; run_commands in each of its shapes is one shell script', () => {
    expect(clineAdapter.toolCall(pre('editor', { path: 'a.txt', old_text: 'a', new_text: 'b' }))).toEqual({ kind: 'edit', paths: ['a.txt'] });
    const patch = '*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n+b\n*** Add File: y.txt\n+y\n*** End Patch';
    expect(clineAdapter.toolCall(pre('apply_patch', { input: patch }))).toEqual({ kind: 'edit', paths: ['src/x.ts', 'y.txt'] });
    expect(clineAdapter.toolCall(pre('run_commands', { commands: ['echo a > a.txt', 'ls'] }))).toEqual({ kind: 'shell', command: 'echo a > a.txt\nls' });
    expect(clineAdapter.toolCall(pre('run_commands', { command: 'make' }))).toEqual({ kind: 'shell', command: 'make' });
    expect(clineAdapter.toolCall(pre('run_commands', { commands: [{ command: 'cp', args: ['a b', 'c'] }] }))).toEqual({ kind: 'shell', command: "'cp' 'a b' 'c'" });
    expect(clineAdapter.toolCall(pre('run_commands', { cmd: 'true' }))).toEqual({ kind: 'shell', command: 'true' });
    expect(clineAdapter.toolCall(pre('read_files', { paths: ['a.txt'] }))).toEqual({ kind: 'other' });
  });

  it("reads the VS Code extension's string-valued preToolUse when there is no tool_call", () => {
    const legacy = { taskId: 't1', workspaceRoots: ['/w'], preToolUse: { toolName: 'write_to_file', parameters: { path: 'a.txt', content: 'x' } } };
    expect(clineAdapter.toolCall(legacy)).toEqual({ kind: 'edit', paths: ['a.txt'] });
    expect(clineAdapter.toolCall({ taskId: 't1', preToolUse: { toolName: 'execute_command', parameters: { command: 'echo hi > b.txt' } } })).toEqual({ kind: 'shell', command: 'echo hi > b.txt' });
    expect(clineAdapter.toolCall({ taskId: 't1', postToolUse: { toolName: 'run_commands', parameters: { commands: '["a","b"]' } } })).toEqual({ kind: 'shell', command: 'a\nb' });
  });

  it('malformed calls are named', () => {
    expect(clineAdapter.toolCall(pre('editor', { old_text: 'a' }))).toMatchObject({ kind: 'malformed', problem: 'the editor call has no input.path' });
    expect(clineAdapter.toolCall(pre('run_commands', { commands: [] }))).toMatchObject({ kind: 'malformed' });
    expect(clineAdapter.toolCall(pre('apply_patch', { input: 'not a patch' }))).toMatchObject({ kind: 'malformed' });
    expect(clineAdapter.toolCall({ taskId: 't' })).toMatchObject({ kind: 'malformed', problem: 'the hook input has no tool_call.name' });
  });

  it("answers in Cline's format: a refusal cancels with the reason, a notice is context, nothing when allowed", () => {
    expect(JSON.parse(clineAdapter.beforeToolReply(DENY).stdout)).toEqual({ cancel: true, errorMessage: DENY.reason });
    expect(clineAdapter.beforeToolReply({ kind: 'allow' })).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(JSON.parse(clineAdapter.afterToolReply('ic: put back').stdout)).toEqual({ context: 'ic: put back' });
    expect(clineAdapter.afterToolReply(undefined).stdout).toBe('');
  });
});
