import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatMock, type ChatMock } from './mock-chat.mjs';
import { runCopilot, waitFor } from './agents';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real GitHub Copilot CLI (test/clients/versions.json) with `ic coord install --copilot` done in a scratch
// repo, against a scripted local chat/completions API. What counts is the files on disk, and the event log.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

async function setup(files: Record<string, string>, scripts: Record<string, unknown[]>, options: { trust: boolean } = { trust: true }): Promise<{ s: Scratch; server: ChatMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startChatMock(scripts);
  closers.push(server.close);
  const install = await ic(s.repo, ['coord', 'install', '--copilot', ...(options.trust ? ['--trust'] : [])], { HOME: s.home });
  expect(install.code).toBe(0);
  return { s, server };
}

const deniedByIc = (output: string) => output.includes('ic: another agent is working on this file');
const outputsOf = (server: ChatMock, conversation: string) =>
  server.requests
    .filter((r) => r.conversation === conversation)
    .at(-1)!
    .outputs.map((o) => o.output);

describe('GitHub Copilot CLI, real binary', () => {
  it("two sessions on one file: the second's create and edit are denied and change nothing; the first's session end releases it", async () => {
    let secondDone = false;
    const { s } = await setup({ 'a.txt': 'alpha\n' }, {});
    const a = join(s.repo, 'a.txt');
    const scripts = {
      FIRST: [[{ name: 'edit', args: { path: a, old_str: 'alpha', new_str: 'first' } }], { until: () => secondDone, then: 'done' }],
      SECOND: [[{ name: 'edit', args: { path: a, old_str: 'first', new_str: 'second' } }], [{ name: 'create', args: { path: a, file_text: 'second\n' } }], 'done'],
    };
    const mock = await startChatMock(scripts);
    closers.push(mock.close);
    const first = runCopilot(s, mock.url, 'work on a.txt [[FIRST]]');
    await waitFor(() => mock.requests.some((r) => r.conversation === 'FIRST' && r.step === 1));
    expect(readFileSync(a, 'utf8')).toBe('first\n');
    const held = await activeLocks(s.repo);
    expect(held).toMatchObject([{ pattern: 'a.txt' }]);
    const firstOwner = held[0]!.owner;
    expect(firstOwner).toMatch(/^copilot-[0-9a-f-]{36}$/);

    const second = await runCopilot(s, mock.url, 'work on a.txt too [[SECOND]]');
    expect(second.code).toBe(0);
    expect(outputsOf(mock, 'SECOND').map(deniedByIc)).toEqual([true, true]);
    expect(outputsOf(mock, 'SECOND')[0]).toContain(`reserved by ${firstOwner}`);
    expect(readFileSync(a, 'utf8')).toBe('first\n');

    secondDone = true;
    expect((await first).code).toBe(0);
    const log = await events(s.repo);
    expect(log.filter((e) => e.type === 'conflict').map((e) => [e.owner.slice(0, 8), e.pattern])).toEqual([
      ['copilot-', 'a.txt'],
      ['copilot-', 'a.txt'],
    ]);
    expect(log.filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern, e.reason])).toEqual([[firstOwner, 'a.txt', 'session ended']]);
    expect(await activeLocks(s.repo)).toEqual([]);
  });

  it('untrusted, Copilot skips the repository hooks and `ic doctor` says so; `install --copilot --trust` makes them run; uninstall takes its files back', async () => {
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n' },
      {
        UNTRUSTED: [[{ name: 'edit', args: { path: 'a.txt', old_str: 'alpha', new_str: 'untrusted' } }], 'done'],
        TRUSTED: [[{ name: 'edit', args: { path: 'a.txt', old_str: 'untrusted', new_str: 'trusted' } }], 'done'],
      },
      { trust: false },
    );
    const exclude = join(s.repo, '.git', 'info', 'exclude');
    expect(execFileSync('git', ['-C', s.repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })).toBe('');
    expect(readFileSync(exclude, 'utf8')).toContain('/.github/hooks/ic.json');
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    const doctor = await ic(s.repo, ['doctor'], { HOME: s.home });
    expect(doctor.json.checks.find((c: any) => c.name === 'copilot_trust')).toMatchObject({ ok: false, severity: 'notice' });
    // What the issue saw: untrusted, Copilot runs no repository hook and writes the held file.
    await runCopilot(s, server.url, 'write [[UNTRUSTED]]');
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('untrusted\n');

    const trust = await ic(s.repo, ['coord', 'install', '--copilot', '--trust'], { HOME: s.home });
    expect(trust.json.changed.map((c: any) => c.file)).toEqual([join(s.home, '.copilot', 'config.json')]);
    expect((await ic(s.repo, ['doctor'], { HOME: s.home })).json.checks.find((c: any) => c.name === 'copilot_trust')).toMatchObject({ ok: true });
    expect((await runCopilot(s, server.url, 'write [[TRUSTED]]')).code).toBe(0);
    expect(outputsOf(server, 'TRUSTED').map(deniedByIc)).toEqual([true]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('untrusted\n');

    expect((await ic(s.repo, ['coord', 'uninstall', '--copilot'], { HOME: s.home })).code).toBe(0);
    expect(existsSync(join(s.repo, '.github'))).toBe(false);
    expect(readFileSync(exclude, 'utf8')).not.toContain('ic coord install');
  });

  it('a shell command runs when it writes no held file', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { SHELL: [[{ name: 'bash', args: { command: 'echo other > other.txt', description: 'write other' } }], 'done'] });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    expect((await runCopilot(s, server.url, 'shell [[SHELL]]')).code).toBe(0);
    expect(readFileSync(join(s.repo, 'other.txt'), 'utf8')).toBe('other\n');
  });

  it('a shell write on a held file is denied and changes nothing', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { SHELL: [[{ name: 'bash', args: { command: 'echo shell > a.txt', description: 'write a' } }], 'done'] });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    expect((await runCopilot(s, server.url, 'shell [[SHELL]]')).code).toBe(0);
    expect(outputsOf(server, 'SHELL').map(deniedByIc)).toEqual([true]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
  });
});
