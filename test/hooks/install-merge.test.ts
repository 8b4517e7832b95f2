import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeEntries, codexEntries, hookCommand } from '../../src/hooks/install/entries';
import { CLAUDE_HOOK_NAMES, CODEX_HOOK_NAMES } from '../../src/hooks/names';
import { chainMode, isGuard, renderGuard } from '../../src/hooks/install/git-hook';
import { mergeHookEntries, removeHookEntries } from '../../src/hooks/install/json-hooks';
import { commandPrograms } from '../../src/hooks/install/hook-commands';

const FALLBACK = ' || { s=$?; [ "$s" -ne 127 ] && exit "$s"; echo \'ic is not installed: run `ic coord uninstall` or reinstall\' >&2; exit 1; }';
const bin = { kind: 'path' as const, bin: "/opt/my tools/it's/bin/ic" };

describe('hook entries', () => {
  it('quote the bin path for the shell', () => {
    expect(hookCommand(bin, 'claude-pre-edit')).toBe("'/opt/my tools/it'\\''s/bin/ic' coord hook claude-pre-edit" + FALLBACK);
  });

  it('a hook whose ic is gone prints one clear line and exits 1 (a non-blocking hook error), and passes every other status through', () => {
    const run = (program: string) => spawnSync('sh', ['-c', hookCommand({ kind: 'path', bin: program }, 'claude-pre-edit')], { encoding: 'utf8' });
    const gone = run('/nowhere/bin/ic');
    expect(gone.status).toBe(1);
    expect(gone.stderr.split('\n').filter((line) => line.includes('ic is not installed'))).toEqual(['ic is not installed: run `ic coord uninstall` or reinstall']);
    const blocks = join(mkdtempSync(join(tmpdir(), 'ic-fake-')), 'ic');
    writeFileSync(blocks, '#!/bin/sh\necho blocked >&2\nexit 2\n', { mode: 0o755 });
    expect(run(blocks)).toMatchObject({ status: 2, stderr: 'blocked\n' });
    writeFileSync(blocks, '#!/bin/sh\necho \'{"ok":true}\'\n', { mode: 0o755 });
    expect(run(blocks)).toMatchObject({ status: 0, stdout: '{"ok":true}\n', stderr: '' });
  });

  it('with the Node.js named first (what install writes), a gone bin/ic or a gone Node.js still says so in one line; a status passes through', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ic-fake-'));
    const script = join(dir, 'ic.js');
    writeFileSync(script, 'process.stderr.write("blocked\\n"); process.exit(2);\n');
    const run = (node: string, program: string) => spawnSync('sh', ['-c', hookCommand({ kind: 'path', bin: program, node }, 'claude-pre-edit')], { encoding: 'utf8' });
    expect(hookCommand({ kind: 'path', bin: '/opt/ic/bin/ic', node: '/usr/bin/node' }, 'claude-pre-edit')).toMatch(/^'\/usr\/bin\/node' '\/opt\/ic\/bin\/ic' coord hook claude-pre-edit \|\| /);
    for (const gone of [run(process.execPath, join(dir, 'missing.js')), run(join(dir, 'no-node'), script)]) {
      expect(gone.status).toBe(1);
      expect(gone.stderr.split('\n').filter((line) => line.includes('ic is not installed'))).toEqual(['ic is not installed: run `ic coord uninstall` or reinstall']);
    }
    expect(run(process.execPath, script)).toMatchObject({ status: 2, stderr: 'blocked\n' });
  });
});

describe('commandPrograms', () => {
  it('names the Node.js and the ic of what install writes, the one program of an older or shared install', () => {
    expect(commandPrograms(hookCommand({ kind: 'path', bin: "/opt/my tools/it's/bin/ic", node: '/usr/bin/node' }, 'claude-pre-edit'))).toEqual(['/usr/bin/node', "/opt/my tools/it's/bin/ic"]);
    expect(commandPrograms(hookCommand(bin, 'claude-pre-edit'))).toEqual(["/opt/my tools/it's/bin/ic"]);
    expect(commandPrograms(hookCommand({ kind: 'on-path' }, 'claude-pre-edit'))).toEqual(['ic']);
  });
});

describe('mergeHookEntries / removeHookEntries', () => {
  const userSettings = `${JSON.stringify({ model: 'opus', hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo hi' }] }], Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }] } }, null, 2)}\n`;

  it("adds our entries next to the user's and is idempotent", () => {
    const once = mergeHookEntries(userSettings, claudeEntries(bin), 'settings.json');
    const parsed = JSON.parse(once);
    expect(parsed.model).toBe('opus');
    expect(parsed.hooks.PreToolUse).toHaveLength(3);
    expect(parsed.hooks.PreToolUse[1].matcher).toBe('Edit|Write|MultiEdit|NotebookEdit|mcp__.*');
    expect(parsed.hooks.PreToolUse[2]).toEqual({ matcher: 'Bash', hooks: [{ type: 'command', command: "'/opt/my tools/it'\\''s/bin/ic' coord hook claude-pre-shell" + FALLBACK, timeout: 10 }] });
    expect(parsed.hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'say done' }] });
    expect(parsed.hooks.Stop[1].hooks[0].command).toContain('claude-turn-end');
    expect(parsed.hooks.SessionStart[0].hooks[0].command).toContain('claude-session-start');
    expect(parsed.hooks.SessionEnd[0].hooks[0].command).toContain('claude-session-end');
    expect(mergeHookEntries(once, claudeEntries(bin), 'settings.json')).toBe(once);
  });

  it('removes exactly what it added', () => {
    const once = mergeHookEntries(userSettings, claudeEntries(bin), 'settings.json');
    expect(removeHookEntries(once, CLAUDE_HOOK_NAMES, 'settings.json')).toBe(userSettings);
  });

  it('replaces an entry whose bin path moved instead of adding a second one', () => {
    const old = mergeHookEntries(undefined, codexEntries({ kind: 'path', bin: '/old/bin/ic' }), 'hooks.json');
    const moved = JSON.parse(mergeHookEntries(old, codexEntries({ kind: 'path', bin: '/new/bin/ic' }), 'hooks.json'));
    expect(moved.hooks.PreToolUse).toEqual([
      { matcher: 'apply_patch|mcp__.*', hooks: [{ type: 'command', command: "'/new/bin/ic' coord hook codex-pre-edit" + FALLBACK, timeout: 10 }] },
      { matcher: 'Bash|exec_command|shell|local_shell', hooks: [{ type: 'command', command: "'/new/bin/ic' coord hook codex-pre-shell" + FALLBACK, timeout: 10 }] },
    ]);
  });

  it("keeps the file's indent and final newline; a file it created goes away again", () => {
    const tabbed = '{\n\t"a": 1\n}';
    const merged = mergeHookEntries(tabbed, codexEntries(bin), 'x.json');
    expect(merged).toMatch(/^\{\n\t"a": 1,\n\t"hooks"/);
    expect(merged.endsWith('}')).toBe(true);
    expect(removeHookEntries(merged, CODEX_HOOK_NAMES, 'x.json')).toBe(tabbed);
    expect(removeHookEntries(mergeHookEntries(undefined, codexEntries(bin), 'x.json'), CODEX_HOOK_NAMES, 'x.json')).toBeNull();
  });

  it('refuses a file that is not JSON rather than overwrite it', () => {
    expect(() => mergeHookEntries('{ nope', codexEntries(bin), 'x.json')).toThrow(/not valid JSON/);
    expect(() => mergeHookEntries('{"hooks": []}', codexEntries(bin), 'x.json')).toThrow(/not an object/);
  });
});

describe('git guard template', () => {
  it('fills in the quoted bin and the chain mode', () => {
    const text = renderGuard("# ic-commit-guard\nic_bin='ic'\nchain_mode='exec'\n", bin.bin, 'same-name');
    expect(text).toContain("ic_bin='/opt/my tools/it'\\''s/bin/ic'\n");
    expect(text).toContain("chain_mode='same-name'\n");
    expect(isGuard(text)).toBe(true);
  });
  it('recognises husky 9 stubs, which need $0 kept', () => {
    expect(chainMode('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')).toBe('same-name');
    expect(chainMode('#!/usr/bin/env sh\n. "${0%/*}/h"\n')).toBe('same-name');
    expect(chainMode('#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\nnpm test\n')).toBe('exec');
    expect(chainMode(undefined)).toBe('exec');
  });
});
