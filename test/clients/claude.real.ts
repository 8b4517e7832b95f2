import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real Claude Code (test/clients/versions.json) with `ic coord install --claude` done in a scratch repo,
// against a scripted local Messages API. What counts is the files on disk afterwards, and the event log.

const NOTEBOOK = JSON.stringify({ cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['x = 1'], outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 });

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

async function setup(files: Record<string, string>): Promise<Scratch> {
  const scratch = makeScratch(files);
  scratches.push(scratch);
  prepareClaudeHome(scratch);
  const install = await ic(scratch.repo, ['coord', 'install', '--claude']);
  expect(install.code).toBe(0);
  return scratch;
}

async function mock(scripts: Record<string, unknown[]>) {
  const server = await startAnthropicMock(scripts);
  closers.push(server.close);
  return server;
}

const read = (file: string) => ({ name: 'Read', input: { file_path: file } });
const edit = (file: string, from: string, to: string) => ({ name: 'Edit', input: { file_path: file, old_string: from, new_string: to } });
const deniedByIc = (text: string) => /PreToolUse:\w+ hook error/.test(text) && text.includes('ic: another agent is working on this file');

describe('Claude Code, real binary', () => {
  it("two sessions, one file: the second session's Edit, Write and NotebookEdit are denied and change nothing; after the first session ends, the second gets it", async () => {
    const s = await setup({ 'a.txt': 'alpha\n', 'nb.ipynb': NOTEBOOK });
    const a = join(s.repo, 'a.txt');
    const nb = join(s.repo, 'nb.ipynb');
    let firstMayEnd = false;
    const server = await mock({
      FIRST: [
        [read(a), read(nb)],
        [edit(a, 'alpha', 'first'), { name: 'NotebookEdit', input: { notebook_path: nb, cell_id: 'c1', new_source: 'x = "first"' } }],
        { until: () => firstMayEnd, then: 'done' },
      ],
      SECOND: [
        [read(a), read(nb)],
        [edit(a, 'first', 'second')],
        [{ name: 'Write', input: { file_path: a, content: 'second\n' } }],
        [{ name: 'NotebookEdit', input: { notebook_path: nb, cell_id: 'c1', new_source: 'x = "second"' } }],
        'done',
      ],
      THIRD: [[read(a)], [edit(a, 'first', 'third')], 'done'],
    });
    const first = runClaude(s, server.url, 'work on a.txt [[FIRST]]');
    // The first session holds both files and stays open while the second one tries.
    await waitFor(() => server.requests.some((r) => r.conversation === 'FIRST' && r.step === 2));
    expect(readFileSync(a, 'utf8')).toBe('first\n');
    const second = await runClaude(s, server.url, 'work on a.txt too [[SECOND]]');
    expect(second.code).toBe(0);
    const results = server.requests.filter((r) => r.conversation === 'SECOND').at(-1)!.toolResults;
    const refused = results.filter((r) => r.id !== undefined && !r.id.endsWith('_0_0') && !r.id.endsWith('_0_1'));
    expect(refused.map((r) => deniedByIc(r.text))).toEqual([true, true, true]);
    expect(readFileSync(a, 'utf8')).toBe('first\n');
    expect(readFileSync(nb, 'utf8')).toContain('first');
    expect(readFileSync(nb, 'utf8')).not.toContain('second');
    firstMayEnd = true;
    const firstDone = await first;
    expect(firstDone.code).toBe(0);
    const log = await events(s.repo);
    const firstOwner = `claude-${firstDone.sessionId}`;
    const secondOwner = `claude-${second.sessionId}`;
    expect(log.filter((e) => e.type === 'conflict' && e.owner === secondOwner).length).toBeGreaterThanOrEqual(3);
    expect(
      log
        .filter((e) => e.type === 'released' && e.owner === firstOwner)
        .map((e) => e.pattern)
        .sort(),
    ).toEqual(['a.txt', 'nb.ipynb']);
    const third = await runClaude(s, server.url, 'now [[THIRD]]');
    expect(third.code).toBe(0);
    expect(readFileSync(a, 'utf8')).toBe('third\n');
  });

  it('a session that cd-ed out of the repository, or was started in a parent directory, is still denied a held file', async () => {
    const s = await setup({ 'a.txt': 'alpha\n' });
    const a = join(s.repo, 'a.txt');
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    const server = await mock({
      CDOUT: [[read(a)], [{ name: 'Bash', input: { command: `cd ${JSON.stringify(s.home)} && pwd`, description: 'leave the repo' } }], [edit(a, 'alpha', 'cd-out')], 'done'],
      PARENT: [[read(a)], [edit(a, 'alpha', 'from-parent')], 'done'],
    });
    // --add-dir lets the shell stay where it cd-ed (Claude resets a cwd outside the allowed directories).
    const cdOut = await runClaude(s, server.url, 'go elsewhere [[CDOUT]]', { args: ['--permission-mode', 'acceptEdits', '--add-dir', s.home] });
    expect(cdOut.code).toBe(0);
    const cdResults = server.requests.filter((r) => r.conversation === 'CDOUT').at(-1)!.toolResults;
    expect(deniedByIc(cdResults.at(-1)!.text)).toBe(true);
    // A session started one level up, with ic's hooks installed there too (its project dir and cwd are not the
    // repository; the file is reached through --add-dir). Outside git, install needs `ic init` there first.
    expect((await ic(s.root, ['coord', 'install', '--claude'])).code).toBe(69);
    expect((await ic(s.root, ['init'])).code).toBe(0);
    expect((await ic(s.root, ['coord', 'install', '--claude'])).code).toBe(0);
    const parent = await runClaude(s, server.url, 'from above [[PARENT]]', { cwd: s.root, args: ['--permission-mode', 'acceptEdits', '--add-dir', s.repo] });
    expect(parent.code).toBe(0);
    const parentResults = server.requests.filter((r) => r.conversation === 'PARENT').at(-1)!.toolResults;
    expect(deniedByIc(parentResults.at(-1)!.text)).toBe(true);
    expect(readFileSync(a, 'utf8')).toBe('alpha\n');
    const conflicts = (await events(s.repo)).filter((e) => e.type === 'conflict');
    expect(conflicts.map((e) => e.owner).sort()).toEqual([`claude-${cdOut.sessionId}`, `claude-${parent.sessionId}`].sort());
  });

  it('two parallel subagents of one session on one file the session holds: one takes it over, the other is denied; the session end releases it', async () => {
    const s = await setup({ 'a.txt': 'alpha\n' });
    const a = join(s.repo, 'a.txt');
    const bothEdited = (requests: { conversation?: string; step: number }[]) => ['SUBA', 'SUBB'].every((c) => requests.some((r) => r.conversation === c && r.step >= 2));
    const agent = (marker: string) => ({ name: 'Agent', input: { description: `edit a.txt ${marker}`, prompt: `Edit a.txt [[${marker}]]`, subagent_type: 'general-purpose' } });
    const server = await mock({
      MAIN: [[read(a)], [edit(a, 'alpha', 'main')], [agent('SUBA'), agent('SUBB')], 'done'],
      SUBA: [[read(a)], [edit(a, 'main', 'by-a')], { until: bothEdited, then: 'done a' }],
      SUBB: [[read(a)], [edit(a, 'main', 'by-b')], { until: bothEdited, then: 'done b' }],
    });
    const main = await runClaude(s, server.url, 'use two helpers [[MAIN]]');
    expect(main.code).toBe(0);
    const last = (c: string) =>
      server.requests
        .filter((r) => r.conversation === c)
        .at(-1)!
        .toolResults.at(-1)!;
    const outcomes = [last('SUBA'), last('SUBB')];
    expect(outcomes.filter((r) => deniedByIc(r.text))).toHaveLength(1);
    expect(outcomes.filter((r) => !r.is_error)).toHaveLength(1);
    expect(['by-a\n', 'by-b\n']).toContain(readFileSync(a, 'utf8'));
    const log = await events(s.repo);
    const session = `claude-${main.sessionId}`;
    const conflicts = log.filter((e) => e.type === 'conflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.owner.startsWith(`${session}/`)).toBe(true);
    // The session's own lock went to the subagent that edited first, and came back when it finished.
    const handedTo = log.filter((e) => e.type === 'transferred').map((e) => e.owner);
    expect(handedTo).toEqual([expect.stringMatching(new RegExp(`^${session}/`)), session]);
    expect(log.filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern])).toEqual([[session, 'a.txt']]);
    expect(await activeLocks(s.repo)).toEqual([]);
  });

  it('an edit that failed, or that the person refused, leaves no lock behind', async () => {
    const s = await setup({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const a = join(s.repo, 'a.txt');
    const b = join(s.repo, 'b.txt');
    let mayEnd = false;
    const server = await mock({
      FAIL: [[read(a)], [edit(a, 'alpha', 'failed')], { until: () => mayEnd, then: 'done' }],
      DENY: [[read(b)], [edit(b, 'beta', 'denied')], 'done'],
    });
    // A failed edit (PostToolUseFailure) gives its lock back at once, while the session goes on. The edit
    // fails because something else changes the file after Claude's own checks passed: here a second
    // PreToolUse hook of the project's, beside ic's.
    const settingsFile = join(s.repo, '.claude', 'settings.local.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8'));
    settings.hooks.PreToolUse.push({ matcher: 'Edit', hooks: [{ type: 'command', command: `printf 'replaced meanwhile\\n' > '${a}'` }] });
    writeFileSync(settingsFile, JSON.stringify(settings));
    const failing = runClaude(s, server.url, 'try [[FAIL]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'FAIL' && r.step === 2));
    expect(server.requests.find((r) => r.conversation === 'FAIL' && r.step === 2)!.toolResults.at(-1)!.is_error).toBe(true);
    expect(await activeLocks(s.repo)).toEqual([]);
    mayEnd = true;
    expect((await failing).code).toBe(0);
    // Default permission mode with nobody to ask: the edit is refused; the turn's end gives the lock back.
    const denying = await runClaude(s, server.url, 'try [[DENY]]', { args: ['--permission-mode', 'default'] });
    expect(denying.code).toBe(0);
    expect(server.requests.find((r) => r.conversation === 'DENY' && r.step === 2)!.toolResults.at(-1)!.is_error).toBe(true);
    const log = await events(s.repo);
    expect(
      log
        .filter((e) => e.type === 'reserved')
        .map((e) => e.pattern)
        .sort(),
    ).toEqual(['a.txt', 'b.txt']);
    expect(
      log
        .filter((e) => e.type === 'released')
        .map((e) => [e.pattern, e.reason])
        .sort(),
    ).toEqual([
      ['a.txt', 'the edit was refused'],
      ['b.txt', 'the edit was refused'],
    ]);
    expect(readFileSync(a, 'utf8')).toBe('replaced meanwhile\n');
    expect(readFileSync(b, 'utf8')).toBe('beta\n');
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error('timed out waiting for the client');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
