import { describe, expect, it } from 'vitest';
import { claudeEditEvent, codexEditEvent } from '../../src/hooks/edit-events';
import { ownerForSession } from '../../src/hooks/identity';
import { sameLineage } from '../../src/core/owner';
import { isPatch, pathsFromPatch } from '../../src/hooks/patch';
import { parsePayload } from '../../src/hooks/payload';

describe('parsePayload', () => {
  it.each([
    ['', 'no input'],
    ['   \n', 'no input'],
    ['not json', 'not JSON'],
    ['[1,2]', 'not a JSON object'],
    ['null', 'not a JSON object'],
    ['"text"', 'not a JSON object'],
  ])('%j is a clear problem', (text, problem) => {
    const parsed = parsePayload(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toContain(problem);
  });

  it('refuses a truncated payload', () => {
    expect(parsePayload('{}', true).ok).toBe(false);
  });
});

describe('pathsFromPatch', () => {
  it('takes every header once, both sides of a move', () => {
    const patch = [
      '*** Begin Patch',
      '*** Update File: a.ts',
      '@@',
      '-x',
      '+y',
      '*** Add File: dir/b c.ts',
      '+z',
      '*** Delete File: old.ts',
      '*** Update File: from.ts',
      '*** Move to: to.ts',
      '*** Update File: a.ts',
      '*** End Patch',
      '',
    ].join('\n');
    expect(pathsFromPatch(patch)).toEqual(['a.ts', 'dir/b c.ts', 'old.ts', 'from.ts', 'to.ts']);
  });

  it('reads CRLF patches and ignores body lines that look like headers', () => {
    expect(pathsFromPatch('*** Begin Patch\r\n*** Add File: x.ts\r\n+*** Add File: not-a-header.ts\r\n*** End Patch\r\n')).toEqual(['x.ts']);
    expect(isPatch('*** Begin Patch\n')).toBe(true);
    expect(isPatch('ls -la')).toBe(false);
  });
});

describe('ownerForSession', () => {
  it('keeps plain ids and hashes odd ones into a safe owner', () => {
    expect(ownerForSession('claude', 'abc-123_X.y')).toBe('claude-abc-123_X.y');
    const odd = ownerForSession('claude', "x'; rm -rf / $(touch pwned)\n");
    expect(odd).toMatch(/^claude-[0-9a-f]{32}$/);
    expect(ownerForSession('codex', 'a'.repeat(500))).toMatch(/^codex-[0-9a-f]{32}$/);
  });
});

describe('claudeEditEvent', () => {
  const base = { session_id: 's1', cwd: '/repo' };
  it.each([
    [
      { ...base, tool_name: 'Edit', tool_input: { file_path: '/repo/a.ts' } },
      { kind: 'edit', owner: 'claude-s1', cwd: '/repo', paths: ['/repo/a.ts'] },
    ],
    [
      { ...base, tool_name: 'Write', tool_input: { file_path: 'rel.ts', content: 'x' } },
      { kind: 'edit', owner: 'claude-s1', cwd: '/repo', paths: ['rel.ts'] },
    ],
    [
      { ...base, tool_name: 'MultiEdit', tool_input: { file_path: '/repo/a.ts', edits: [] } },
      { kind: 'edit', owner: 'claude-s1', cwd: '/repo', paths: ['/repo/a.ts'] },
    ],
    [
      { ...base, tool_name: 'NotebookEdit', tool_input: { notebook_path: '/repo/n.ipynb' } },
      { kind: 'edit', owner: 'claude-s1', cwd: '/repo', paths: ['/repo/n.ipynb'] },
    ],
    [{ ...base, tool_name: 'Bash', tool_input: { command: 'rm x' } }, { kind: 'ignore' }],
    [{ ...base, tool_name: 'Read', tool_input: { file_path: '/repo/a.ts' } }, { kind: 'ignore' }],
  ])('%j', (payload, expected) => {
    expect(claudeEditEvent(payload)).toEqual(expected);
  });

  it.each([
    [{ ...base, tool_input: { file_path: '/repo/a.ts' } }, 'tool_name'],
    [{ ...base, tool_name: 'Edit' }, 'file_path'],
    [{ ...base, tool_name: 'Edit', tool_input: { file_path: 42 } }, 'file_path'],
    [{ cwd: '/repo', tool_name: 'Edit', tool_input: { file_path: '/repo/a.ts' } }, 'session_id'],
  ])('malformed %j', (payload, problem) => {
    const event = claudeEditEvent(payload);
    expect(event.kind).toBe('malformed');
    if (event.kind === 'malformed') expect(event.problem).toContain(problem);
  });
});

describe('codexEditEvent', () => {
  const patch = '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** End Patch\n';
  it('reads apply_patch paths from tool_input.command', () => {
    expect(codexEditEvent({ session_id: 'c1', cwd: '/r', tool_name: 'apply_patch', tool_input: { command: patch } }, {})).toEqual({
      kind: 'edit',
      owner: 'codex-c1',
      cwd: '/r',
      paths: ['a.ts', 'b.ts'],
    });
  });
  it('allows other shell commands at once and reports an apply_patch without a patch', () => {
    expect(codexEditEvent({ session_id: 'c1', tool_name: 'Bash', tool_input: { command: 'ls' } }, {})).toEqual({ kind: 'ignore' });
    expect(codexEditEvent({ session_id: 'c1', tool_name: 'Bash', tool_input: { command: 'grep apply_patch notes.md' } }, {}).kind).toBe('malformed');
    expect(codexEditEvent({ session_id: 'c1', tool_name: 'apply_patch', tool_input: {} }, {}).kind).toBe('malformed');
  });
  it.each([
    ['quoted heredoc', `apply_patch <<'EOF'\n${patch}EOF\n`, ['/r/a.ts', '/r/b.ts']],
    ['plain heredoc, applypatch', `applypatch <<EOF\n${patch}EOF`, ['/r/a.ts', '/r/b.ts']],
    ['after cd', `cd sub && apply_patch <<"PATCH"\n${patch}PATCH`, ['/r/sub/a.ts', '/r/sub/b.ts']],
    ['quoted argument', `apply_patch '${patch}'`, ['/r/a.ts', '/r/b.ts']],
    ['argv array', ['bash', '-lc', `apply_patch <<'EOF'\n${patch}EOF`], ['/r/a.ts', '/r/b.ts']],
  ])('reads paths out of a shell %s', (_name, command, paths) => {
    expect(codexEditEvent({ session_id: 'c1', cwd: '/r', tool_name: 'Bash', tool_input: { command } }, {})).toEqual({ kind: 'edit', owner: 'codex-c1', cwd: '/r', paths });
  });
  it('acts as $IC_OWNER when Codex was started with one', () => {
    const event = codexEditEvent({ session_id: 'c1', tool_name: 'apply_patch', tool_input: { command: patch } }, { IC_OWNER: 'codex-main' });
    expect(event).toMatchObject({ kind: 'edit', owner: 'codex-main' });
  });
});

describe('subagent owners', () => {
  it('a subagent acts as <session>/<agent_id>, and carries the tool call id', () => {
    const event = claudeEditEvent({ session_id: 's1', agent_id: 'a7', tool_use_id: 'toolu_1', tool_name: 'Edit', tool_input: { file_path: '/r/x' } });
    expect(event).toEqual({ kind: 'edit', owner: 'claude-s1/a7', cwd: undefined, paths: ['/r/x'], toolUseId: 'toolu_1' });
  });
  it('a session and its subagents are one lineage; siblings are not', () => {
    expect(sameLineage('claude-s1', 'claude-s1/a7')).toBe(true);
    expect(sameLineage('claude-s1/a7', 'claude-s1')).toBe(true);
    expect(sameLineage('claude-s1/a7', 'claude-s1/a8')).toBe(false);
    expect(sameLineage('claude-s1', 'claude-s10')).toBe(false);
  });
});
