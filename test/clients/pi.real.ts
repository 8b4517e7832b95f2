import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { startChatMock, type ChatMock } from './mock-chat.mjs';
import { preparePi, runPi, waitFor } from './agents';
import { prepareClaudeHome, runClaude } from './claude';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real pi (test/clients/versions.json) with `ic coord install --pi` (its extension .pi/extensions/ic.ts) in a
// scratch repo, against a scripted local chat/completions API (pi's models config names it).

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

async function setup(files: Record<string, string>, scripts: (s: Scratch) => Record<string, unknown[]>, flags = ['--pi']): Promise<{ s: Scratch; server: ChatMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startChatMock(scripts(s));
  closers.push(server.close);
  preparePi(s, server.url);
  const install = await ic(s.repo, ['coord', 'install', ...flags], { HOME: s.home });
  expect(install.code, install.stderr).toBe(0);
  return { s, server };
}

const deniedByIc = (output: string) => output.includes('ic: another agent is working on this file');
const outputsOf = (server: ChatMock, conversation: string) =>
  server.requests
    .filter((r) => r.conversation === conversation)
    .at(-1)!
    .outputs.map((o) => o.output);

describe('pi, real binary', () => {
  it("two sessions on one file: the second's edit and write are blocked and change nothing; its shell runs; session_shutdown releases", async () => {
    let secondDone = false;
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, (scratch) => ({
      FIRST: [[{ name: 'write', args: { path: join(scratch.repo, 'a.txt'), content: 'first\n' } }], { until: () => secondDone, then: 'done' }],
      SECOND: [
        [{ name: 'edit', args: { path: 'a.txt', edits: [{ oldText: 'first', newText: 'second' }] } }],
        [{ name: 'write', args: { path: '@a.txt', content: 'second\n' } }],
        [{ name: 'bash', args: { command: 'echo other > other.txt' } }],
        'done',
      ],
    }));
    const first = runPi(s, 'work on a.txt [[FIRST]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'FIRST' && r.step === 1), 120_000);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('first\n');
    const held = await activeLocks(s.repo);
    expect(held).toMatchObject([{ pattern: 'a.txt' }]);
    const firstOwner = held[0]!.owner;
    expect(firstOwner).toMatch(/^pi-[0-9a-f-]{36}$/);

    const second = await runPi(s, 'work on a.txt too [[SECOND]]');
    expect(second.code, second.stderr).toBe(0);
    expect(outputsOf(server, 'SECOND').map(deniedByIc)).toEqual([true, true, false]);
    expect(outputsOf(server, 'SECOND')[0]).toContain(`reserved by ${firstOwner}`);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('first\n');
    expect(readFileSync(join(s.repo, 'other.txt'), 'utf8')).toBe('other\n');

    secondDone = true;
    expect((await first).code).toBe(0);
    const log = await events(s.repo);
    expect(log.filter((e) => e.type === 'conflict').map((e) => [e.owner.slice(0, 3), e.pattern])).toEqual([
      ['pi-', 'a.txt'],
      ['pi-', 'a.txt'],
    ]);
    const released = log.filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern, e.reason]);
    expect(released).toContainEqual([firstOwner, 'a.txt', 'session ended']);
    expect(await activeLocks(s.repo)).toEqual([]);
    // The extension is in .git/info/exclude: nothing of ic's for `git add -A`.
    expect(execFileSync('git', ['-C', s.repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })).toBe(' M a.txt\n?? other.txt\n');
  });

  it('a shell write on a held file: denied before when ic can see it, put back after when it cannot; the model is told', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n', 'w.py': "open('a.txt','w').write('x')\n" }, () => ({
      SHELL: [[{ name: 'bash', args: { command: 'echo shell > a.txt' } }], [{ name: 'bash', args: { command: 'python3 w.py' } }], 'done'],
    }));
    const reserve = await ic(s.repo, ['coord', 'reserve', 'a.txt'], { IC_OWNER: 'other-agent', IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() });
    expect(reserve.code).toBe(0);
    const run = await runPi(s, 'shell [[SHELL]]');
    expect(run.code, run.stderr).toBe(0);
    const outputs = outputsOf(server, 'SHELL');
    expect(deniedByIc(outputs[0]!)).toBe(true);
    expect(outputs[1]).toContain('is held by other-agent');
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect((await events(s.repo)).filter((e) => e.type === 'restored')).toMatchObject([{ owner: expect.stringMatching(/^pi-/), pattern: 'a.txt' }]);
  });

  it('cross-client: a file Claude Code holds is blocked to pi; a file pi holds is denied to Claude Code', async () => {
    let claudeDone = false;
    let piDone = false;
    let repo = '';
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n', 'p.txt': 'p\n' },
      (scratch) => {
        repo = scratch.repo;
        return {
          TRY: [[{ name: 'write', args: { path: 'a.txt', content: 'pi\n' } }], 'done'],
          HOLD: [[{ name: 'write', args: { path: 'p.txt', content: 'pi\n' } }], { until: () => claudeDone, then: 'done' }],
        };
      },
      ['--pi', '--claude'],
    );
    const claude = await startAnthropicMock({
      HOLD: [
        [{ name: 'Read', input: { file_path: join(repo, 'a.txt') } }],
        [{ name: 'Edit', input: { file_path: join(repo, 'a.txt'), old_string: 'alpha', new_string: 'claude' } }],
        { until: () => piDone, then: 'done' },
      ],
      TRY: [[{ name: 'Read', input: { file_path: join(repo, 'p.txt') } }], [{ name: 'Edit', input: { file_path: join(repo, 'p.txt'), old_string: 'pi', new_string: 'claude' } }], 'done'],
    });
    closers.push(claude.close);
    prepareClaudeHome(s);

    const holder = runClaude(s, claude.url, 'edit a.txt [[HOLD]]');
    await waitFor(() => claude.requests.some((r) => r.conversation === 'HOLD' && r.step === 2), 120_000);
    expect((await runPi(s, 'write a.txt [[TRY]]')).code).toBe(0);
    expect(outputsOf(server, 'TRY').map(deniedByIc)).toEqual([true]);
    expect(outputsOf(server, 'TRY')[0]).toContain('reserved by claude-');
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('claude\n');
    piDone = true;
    expect((await holder).code).toBe(0);

    const piHolder = runPi(s, 'write p.txt [[HOLD]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'HOLD' && r.step === 1), 120_000);
    const tried = await runClaude(s, claude.url, 'edit p.txt [[TRY]]');
    expect(tried.code).toBe(0);
    const results = claude.requests
      .filter((r) => r.conversation === 'TRY')
      .at(-1)!
      .toolResults.slice(1);
    expect(results.map((r) => deniedByIc(r.text))).toEqual([true]);
    expect(results[0]!.text).toContain('reserved by pi-');
    expect(readFileSync(join(s.repo, 'p.txt'), 'utf8')).toBe('pi\n');
    claudeDone = true;
    expect((await piHolder).code).toBe(0);
  });
});
