import { describe, expect, it } from 'vitest';
import { clientOfProgram, realClientOf } from '../../src/hooks/real-client';

// Which client runs a hook: the program of the process that started it, else the client's environment,
// else the payload's shape. (This test's own parent is vitest's node, which names no client, so the
// fallbacks decide here; the process rule is proven end to end in test/e2e/foreign-hooks.test.ts.)

describe('clientOfProgram', () => {
  it('names each client by its native binary or its npm package script, and nothing else', () => {
    const cache = '/home/u/.cache/x/node_modules';
    expect(clientOfProgram([`${cache}/@github/copilot-linux-x64/copilot`, 'copilot', '-p'])).toBe('copilot');
    expect(clientOfProgram(['/usr/bin/node', '/usr/bin/node', `${cache}/@github/copilot/npm-loader.js`])).toBe('copilot');
    expect(clientOfProgram([`${cache}/@anthropic-ai/claude-code/bin/claude.exe`])).toBe('claude');
    expect(clientOfProgram(['/usr/bin/node', 'node', `${cache}/@anthropic-ai/claude-code/cli.js`])).toBe('claude');
    expect(clientOfProgram([`${cache}/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex/codex`])).toBe('codex');
    expect(clientOfProgram(['/usr/bin/node', 'node', `${cache}/@google/gemini-cli/bundle/gemini.js`])).toBe('gemini');
    expect(clientOfProgram([`${cache}/opencode-ai/bin/opencode.exe`])).toBe('opencode');
    for (const other of [['/usr/bin/node', 'node', '/repo/test/support/fake-client-process.mjs'], ['/usr/bin/python3', 'python3', 'copilot_helper.py'], ['/usr/bin/vim', 'vim', 'claude-notes.md'], []])
      expect(clientOfProgram(other)).toBeUndefined();
  });
});

describe('realClientOf without a client process to go by', () => {
  const claudeShaped = { hook_event_name: 'PreToolUse', session_id: 'S', tool_name: 'Bash', tool_input: { command: 'ls' } };

  it("Claude Code's own session id in the environment says Claude, also inside a Copilot shell", () => {
    expect(realClientOf('claude', claudeShaped, { CLAUDE_CODE_SESSION_ID: 'S', COPILOT_CLI: '1' })).toBe('claude');
  });

  it("COPILOT_CLI=1 says Copilot, also when a Claude session's variables were inherited", () => {
    expect(realClientOf('claude', claudeShaped, { COPILOT_CLI: '1', CLAUDE_CODE_SESSION_ID: 'the-parent-claude' })).toBe('copilot');
  });

  it("Copilot's Claude-shaped payload (a timestamp, no transcript_path) says Copilot; Claude's own says nothing", () => {
    expect(realClientOf('claude', { ...claudeShaped, timestamp: '2026-11-27T14:41:52.530Z' }, {})).toBe('copilot');
    expect(realClientOf('claude', { ...claudeShaped, transcript_path: '/t.jsonl' }, {})).toBeUndefined();
    expect(realClientOf('codex', { ...claudeShaped, timestamp: '2026-11-27T14:41:52.530Z' }, {})).toBeUndefined();
  });
});
