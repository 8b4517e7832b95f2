import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { startChatMock } from './mock-chat.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { runCopilot, waitFor } from './agents';
import { activeLocks, ic, makeScratch, type Scratch } from './support';

// Real Copilot CLI and real Claude Code with both installed in one repository (`install --claude --copilot`):
// Copilot 1.0.102 runs the Claude hooks of .claude/settings.local.json too, with Claude-shaped input. Each
// session must stay one owner: its own shell writes pass, another session of the same client is refused.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

const deniedByIc = (text: string) => text.includes('ic: another agent is working on');

async function bothInstalled(files: Record<string, string>): Promise<Scratch> {
  const s = makeScratch(files);
  scratches.push(s);
  prepareClaudeHome(s);
  const install = await ic(s.repo, ['coord', 'install', '--claude', '--copilot', '--trust'], { HOME: s.home });
  expect(install.code).toBe(0);
  return s;
}

describe('Copilot CLI and Claude Code installed together, real binaries', () => {
  it("Copilot: a session's own shell write to the file it holds is allowed; another Copilot session's is refused", async () => {
    let secondDone = false;
    const s = await bothInstalled({ 'a.txt': 'alpha\n' });
    const a = join(s.repo, 'a.txt');
    const chat = await startChatMock({
      FIRST: [
        [{ name: 'edit', args: { path: a, old_str: 'alpha', new_str: 'first' } }],
        [{ name: 'bash', args: { command: 'echo first-shell > a.txt', description: 'write a' } }],
        { until: () => secondDone, then: 'done' },
      ],
      SECOND: [[{ name: 'bash', args: { command: 'echo second-shell > a.txt', description: 'write a' } }], 'done'],
    });
    closers.push(chat.close);
    const outputs = (conversation: string) =>
      chat.requests
        .filter((r) => r.conversation === conversation)
        .at(-1)!
        .outputs.map((o) => o.output);

    const first = runCopilot(s, chat.url, 'work on a.txt [[FIRST]]');
    await waitFor(() => chat.requests.some((r) => r.conversation === 'FIRST' && r.step === 2), 120_000);
    expect(outputs('FIRST').map(deniedByIc)).toEqual([false, false]);
    expect(readFileSync(a, 'utf8')).toBe('first-shell\n');
    const held = await activeLocks(s.repo);
    expect(held.map((l) => l.pattern)).toEqual(['a.txt']);
    expect(held[0]!.owner).toMatch(/^copilot-[0-9a-f-]{36}$/);

    expect((await runCopilot(s, chat.url, 'write a.txt too [[SECOND]]')).code).toBe(0);
    expect(outputs('SECOND').map(deniedByIc)).toEqual([true]);
    expect(readFileSync(a, 'utf8')).toBe('first-shell\n');
    secondDone = true;
    expect((await first).code).toBe(0);
    const who = await ic(s.repo, ['coord', 'who']);
    expect(who.stdout).not.toMatch(/claude-/); // no second owner for a Copilot session
  });

  it("Claude Code: a session's own shell write to the file it holds is allowed; another Claude session's is refused", async () => {
    let secondDone = false;
    const s = await bothInstalled({ 'b.txt': 'beta\n' });
    const b = join(s.repo, 'b.txt');
    const claude = await startAnthropicMock({
      FIRST: [
        [{ name: 'Read', input: { file_path: b } }],
        [{ name: 'Edit', input: { file_path: b, old_string: 'beta', new_string: 'first' } }],
        [{ name: 'Bash', input: { command: 'echo first-shell > b.txt' } }],
        { until: () => secondDone, then: 'done' },
      ],
      SECOND: [[{ name: 'Bash', input: { command: 'echo second-shell > b.txt' } }], 'done'],
    });
    closers.push(claude.close);
    const results = (conversation: string) =>
      claude.requests
        .filter((r) => r.conversation === conversation)
        .at(-1)!
        .toolResults.map((r) => r.text);
    const args = ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'];

    const first = runClaude(s, claude.url, 'work on b.txt [[FIRST]]', { args });
    await waitFor(() => claude.requests.some((r) => r.conversation === 'FIRST' && r.step === 3), 120_000);
    expect(results('FIRST').map(deniedByIc)).toEqual([false, false, false]);
    expect(readFileSync(b, 'utf8')).toBe('first-shell\n');
    const held = await activeLocks(s.repo);
    expect(held.map((l) => [l.owner.split('-')[0], l.pattern])).toEqual([['claude', 'b.txt']]);

    expect((await runClaude(s, claude.url, 'write b.txt too [[SECOND]]', { args })).code).toBe(0);
    expect(results('SECOND').map(deniedByIc)).toEqual([true]);
    expect(readFileSync(b, 'utf8')).toBe('first-shell\n');
    secondDone = true;
    expect((await first).code).toBe(0);
  });
});
