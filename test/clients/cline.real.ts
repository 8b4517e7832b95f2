import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { startChatMock, type ChatMock } from './mock-chat.mjs';
import { prepareCline, runCline, waitFor } from './agents';
import { prepareClaudeHome, runClaude } from './claude';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real Cline CLI (test/clients/versions.json) with `ic coord install --cline` (hook files in
// .clinerules/hooks/) in a scratch repo, against a scripted local chat/completions API (`cline auth` names
// it). Cline 3.0.65's PreToolUse refusal ends the task: the model is asked nothing more after it.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

async function setup(files: Record<string, string>, scripts: (s: Scratch) => Record<string, unknown[]>, flags = ['--cline']): Promise<{ s: Scratch; server: ChatMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startChatMock(scripts(s));
  closers.push(server.close);
  await prepareCline(s, server.url);
  const install = await ic(s.repo, ['coord', 'install', ...flags], { HOME: s.home });
  expect(install.code, install.stderr).toBe(0);
  return { s, server };
}

const stepsOf = (server: ChatMock, conversation: string) => server.requests.filter((r) => r.conversation === conversation).map((r) => r.step);

describe('Cline CLI, real binary', () => {
  it("two sessions on one file: the second's edit is refused (its task ends) and changes nothing; TaskComplete releases", async () => {
    let secondDone = false;
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, (scratch) => ({
      FIRST: [[{ name: 'editor', args: { path: join(scratch.repo, 'a.txt'), old_text: 'alpha', new_text: 'first' } }], { until: () => secondDone, then: 'done' }],
      SECOND: [[{ name: 'editor', args: { path: 'a.txt', old_text: 'first', new_text: 'second' } }], 'done'],
      FREE: [[{ name: 'run_commands', args: { commands: ['echo other > other.txt'] } }], 'done'],
    }));
    const first = runCline(s, 'work on a.txt [[FIRST]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'FIRST' && r.step === 1), 120_000);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('first\n');
    const held = await activeLocks(s.repo);
    expect(held).toMatchObject([{ pattern: 'a.txt' }]);
    const firstOwner = held[0]!.owner;
    expect(firstOwner).toMatch(/^cline-[A-Za-z0-9_]+$/);

    const second = await runCline(s, 'work on a.txt too [[SECOND]]');
    expect(stepsOf(server, 'SECOND')).toEqual([0]); // refused: Cline ended the task, the model was not asked again
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('first\n');
    const conflicts = (await events(s.repo)).filter((e) => e.type === 'conflict');
    expect(conflicts).toMatchObject([{ owner: expect.stringMatching(/^cline-/), pattern: 'a.txt' }]);
    expect(conflicts[0]!.owner).not.toBe(firstOwner);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('"finishReason":"aborted"'); // Cline's word for a task a PreToolUse hook cancelled

    secondDone = true;
    expect((await first).code).toBe(0);
    // TaskComplete runs detached: it releases shortly after Cline exits.
    for (let tries = 0; (await activeLocks(s.repo)).length > 0; tries++) {
      expect(tries, 'TaskComplete released the locks').toBeLessThan(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const released = (await events(s.repo)).filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern, e.reason]);
    expect(released).toContainEqual([firstOwner, 'a.txt', 'session ended']);

    // A third session's shell command on a free file runs (and its write is its own).
    const free = await runCline(s, 'write other [[FREE]]');
    expect(free.code, free.stderr).toBe(0);
    expect(readFileSync(join(s.repo, 'other.txt'), 'utf8')).toBe('other\n');
    expect(execFileSync('git', ['-C', s.repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })).toBe(' M a.txt\n?? other.txt\n');
  });

  it('a shell write on a held file: denied before when ic can see it, put back after when it cannot', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n', 'w.py': "open('a.txt','w').write('x')\n" }, () => ({
      SEEN: [[{ name: 'run_commands', args: { commands: ['echo shell > a.txt'] } }], 'done'],
      UNSEEN: [[{ name: 'run_commands', args: { commands: ['python3 w.py'] } }], 'done'],
    }));
    const reserve = await ic(s.repo, ['coord', 'reserve', 'a.txt'], { IC_OWNER: 'other-agent', IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() });
    expect(reserve.code).toBe(0);
    await runCline(s, 'shell [[SEEN]]');
    expect(stepsOf(server, 'SEEN')).toEqual([0]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
    const unseen = await runCline(s, 'shell [[UNSEEN]]');
    expect(unseen.code, unseen.stderr).toBe(0);
    expect(stepsOf(server, 'UNSEEN')).toEqual([0, 1]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect((await events(s.repo)).filter((e) => e.type === 'restored')).toMatchObject([{ owner: expect.stringMatching(/^cline-/), pattern: 'a.txt' }]);
  });

  it('cross-client: a file Claude Code holds is refused to Cline; a file Cline holds is denied to Claude Code', async () => {
    let claudeDone = false;
    let clineDone = false;
    let repo = '';
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n', 'c.txt': 'c\n' },
      (scratch) => {
        repo = scratch.repo;
        return {
          TRY: [[{ name: 'editor', args: { path: join(scratch.repo, 'a.txt'), old_text: 'claude', new_text: 'cline' } }], 'done'],
          HOLD: [[{ name: 'editor', args: { path: join(scratch.repo, 'c.txt'), old_text: 'c', new_text: 'cline' } }], { until: () => claudeDone, then: 'done' }],
        };
      },
      ['--cline', '--claude'],
    );
    const claude = await startAnthropicMock({
      HOLD: [
        [{ name: 'Read', input: { file_path: join(repo, 'a.txt') } }],
        [{ name: 'Edit', input: { file_path: join(repo, 'a.txt'), old_string: 'alpha', new_string: 'claude' } }],
        { until: () => clineDone, then: 'done' },
      ],
      TRY: [[{ name: 'Read', input: { file_path: join(repo, 'c.txt') } }], [{ name: 'Edit', input: { file_path: join(repo, 'c.txt'), old_string: 'cline', new_string: 'claude' } }], 'done'],
    });
    closers.push(claude.close);
    prepareClaudeHome(s);

    const holder = runClaude(s, claude.url, 'edit a.txt [[HOLD]]');
    await waitFor(() => claude.requests.some((r) => r.conversation === 'HOLD' && r.step === 2), 120_000);
    await runCline(s, 'edit a.txt [[TRY]]');
    expect(stepsOf(server, 'TRY')).toEqual([0]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('claude\n');
    expect((await events(s.repo)).filter((e) => e.type === 'conflict')).toMatchObject([{ owner: expect.stringMatching(/^cline-/), pattern: 'a.txt' }]);
    clineDone = true;
    expect((await holder).code).toBe(0);

    const clineHolder = runCline(s, 'edit c.txt [[HOLD]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'HOLD' && r.step === 1), 120_000);
    const tried = await runClaude(s, claude.url, 'edit c.txt [[TRY]]');
    expect(tried.code).toBe(0);
    const results = claude.requests
      .filter((r) => r.conversation === 'TRY')
      .at(-1)!
      .toolResults.slice(1);
    expect(results.map((r) => r.text.includes('ic: another agent is working on this file'))).toEqual([true]);
    expect(results[0]!.text).toContain('reserved by cline-');
    expect(readFileSync(join(s.repo, 'c.txt'), 'utf8')).toBe('cline\n');
    claudeDone = true;
    expect((await clineHolder).code).toBe(0);
  });
});
