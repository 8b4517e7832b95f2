import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { startChatMock } from './mock-chat.mjs';
import { startGeminiMock } from './mock-gemini.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { prepareGeminiHome, prepareOpencode, runCopilot, runGemini, runOpencode, waitFor } from './agents';
import { activeLocks, ic, makeScratch, type Scratch } from './support';

// Real Claude Code against the real Gemini CLI, Copilot CLI and OpenCode in one scratch repository with all
// four installed: whoever holds a file first, the others are denied it and it stays as the holder wrote it.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

const deniedByIc = (text: string) => text.includes('ic: another agent is working on this file');

type Scripts = { claude: Record<string, unknown[]>; gemini: Record<string, unknown[]>; chat: Record<string, unknown[]> };

async function setup(files: Record<string, string>, scriptsFor: (s: Scratch) => Scripts) {
  const s = makeScratch(files);
  scratches.push(s);
  const scripts = scriptsFor(s);
  const claude = await startAnthropicMock(scripts.claude);
  const gemini = await startGeminiMock(scripts.gemini);
  const chat = await startChatMock(scripts.chat); // Copilot and OpenCode: the same chat/completions wire
  closers.push(claude.close, gemini.close, chat.close);
  prepareClaudeHome(s);
  prepareGeminiHome(s);
  prepareOpencode(s, chat.url);
  const install = await ic(s.repo, ['coord', 'install', '--claude', '--gemini', '--copilot', '--opencode', '--trust'], { HOME: s.home });
  expect(install.code).toBe(0);
  return { s, claude, gemini, chat };
}

describe('cross-client, real binaries', () => {
  it('Claude Code holds a file: Gemini CLI, Copilot CLI and OpenCode are denied it; they hold files: Claude Code is denied each', async () => {
    let othersDone = false;
    let claudeDone = false;
    let repo = '';
    const file = (name: string) => join(repo, name);
    const { s, claude, gemini, chat } = await setup({ 'a.txt': 'alpha\n', 'g.txt': 'g\n', 'c.txt': 'c\n', 'o.txt': 'o\n' }, (scratch) => {
      repo = scratch.repo;
      return {
        claude: {
          HOLD: [
            [{ name: 'Read', input: { file_path: file('a.txt') } }],
            [{ name: 'Edit', input: { file_path: file('a.txt'), old_string: 'alpha', new_string: 'claude' } }],
            { until: () => othersDone, then: 'done' },
          ],
          TRY: [
            ['g.txt', 'c.txt', 'o.txt'].map((f) => ({ name: 'Read', input: { file_path: file(f) } })),
            [
              ['g.txt', 'gemini'],
              ['c.txt', 'copilot'],
              ['o.txt', 'opencode'],
            ].map(([f, text]) => ({ name: 'Edit', input: { file_path: file(f!), old_string: text, new_string: 'claude' } })),
            'done',
          ],
        },
        gemini: {
          TRY: [[{ name: 'write_file', args: { file_path: 'a.txt', content: 'gemini\n' } }], 'done'],
          HOLD: [[{ name: 'write_file', args: { file_path: 'g.txt', content: 'gemini\n' } }], { until: () => claudeDone, then: 'done' }],
        },
        chat: {
          COPILOT_TRY: [[{ name: 'edit', args: { path: file('a.txt'), old_str: 'claude', new_str: 'copilot' } }], 'done'],
          OPENCODE_TRY: [[{ name: 'write', args: { filePath: file('a.txt'), content: 'opencode\n' } }], 'done'],
          COPILOT_HOLD: [[{ name: 'edit', args: { path: file('c.txt'), old_str: 'c', new_str: 'copilot' } }], { until: () => claudeDone, then: 'done' }],
          OPENCODE_HOLD: [[{ name: 'write', args: { filePath: file('o.txt'), content: 'opencode\n' } }], { until: () => claudeDone, then: 'done' }],
        },
      };
    });
    const chatOutputs = (conversation: string) =>
      chat.requests
        .filter((r) => r.conversation === conversation)
        .at(-1)!
        .outputs.map((o) => o.output);

    // Claude holds a.txt (its session stays open); the three others try it at the same time.
    const holder = runClaude(s, claude.url, 'edit a.txt [[HOLD]]');
    await waitFor(() => claude.requests.some((r) => r.conversation === 'HOLD' && r.step === 2));
    expect(readFileSync(file('a.txt'), 'utf8')).toBe('claude\n');
    const tries = await Promise.all([runGemini(s, gemini.url, 'write a.txt [[TRY]]'), runCopilot(s, chat.url, 'edit a.txt [[COPILOT_TRY]]'), runOpencode(s, 'write a.txt [[OPENCODE_TRY]]')]);
    expect(tries.map((t) => t.code)).toEqual([0, 0, 0]);
    const geminiOutputs = gemini.requests
      .filter((r) => r.conversation === 'TRY')
      .at(-1)!
      .outputs.map((o) => o.output);
    expect([...geminiOutputs, ...chatOutputs('COPILOT_TRY'), ...chatOutputs('OPENCODE_TRY')].map(deniedByIc)).toEqual([true, true, true]);
    expect(readFileSync(file('a.txt'), 'utf8')).toBe('claude\n');
    othersDone = true;
    expect((await holder).code).toBe(0);

    // The reverse: Gemini, Copilot and OpenCode each hold a file (sessions open); Claude tries all three.
    const holders = [runGemini(s, gemini.url, 'write g.txt [[HOLD]]'), runCopilot(s, chat.url, 'edit c.txt [[COPILOT_HOLD]]'), runOpencode(s, 'write o.txt [[OPENCODE_HOLD]]')];
    await waitFor(() => gemini.requests.some((r) => r.conversation === 'HOLD' && r.step === 1), 120_000);
    await waitFor(() => ['COPILOT_HOLD', 'OPENCODE_HOLD'].every((c) => chat.requests.some((r) => r.conversation === c && r.step === 1)), 120_000);
    expect((await activeLocks(s.repo)).map((l) => [l.owner.split('-')[0], l.pattern]).sort()).toEqual([
      ['copilot', 'c.txt'],
      ['gemini', 'g.txt'],
      ['opencode', 'o.txt'],
    ]);
    const tried = await runClaude(s, claude.url, 'edit them [[TRY]]');
    expect(tried.code).toBe(0);
    const results = claude.requests
      .filter((r) => r.conversation === 'TRY')
      .at(-1)!
      .toolResults.slice(3);
    expect(results.map((r) => deniedByIc(r.text))).toEqual([true, true, true]);
    expect(['g.txt', 'c.txt', 'o.txt'].map((f) => readFileSync(file(f), 'utf8'))).toEqual(['gemini\n', 'copilot\n', 'opencode\n']);
    claudeDone = true;
    expect((await Promise.all(holders)).map((h) => h.code)).toEqual([0, 0, 0]);
  });
});
