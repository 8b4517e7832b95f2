import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChatMock, type ChatMock } from './mock-chat.mjs';
import { prepareOpencode, runOpencode, waitFor } from './agents';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real OpenCode (test/clients/versions.json) with `ic coord install --opencode` (its plugin) in a scratch
// repo, against a scripted local chat/completions API. A run takes tens of seconds here: few runs.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

async function setup(files: Record<string, string>, scripts: Record<string, unknown[]>): Promise<{ s: Scratch; server: ChatMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startChatMock(scripts);
  closers.push(server.close);
  prepareOpencode(s, server.url);
  const install = await ic(s.repo, ['coord', 'install', '--opencode'], { HOME: s.home });
  expect(install.code).toBe(0);
  return { s, server };
}

const deniedByIc = (output: string) => output.includes('ic: another agent is working on this file');
const outputsOf = (server: ChatMock, conversation: string) =>
  server.requests
    .filter((r) => r.conversation === conversation)
    .at(-1)!
    .outputs.map((o) => o.output);

describe('OpenCode, real binary', () => {
  it("two sessions on one file: the second's edit and write are denied and change nothing; the plugin releases at process exit; the shell runs", async () => {
    let secondDone = false;
    const a = (s: Scratch) => join(s.repo, 'a.txt');
    let scratch: Scratch | undefined;
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n' },
      {
        FIRST: [
          [
            {
              name: 'write',
              get args() {
                return { filePath: a(scratch!), content: 'first\n' };
              },
            },
          ],
          { until: () => secondDone, then: 'done' },
        ],
        SECOND: [
          [{ name: 'edit', args: { filePath: 'a.txt', oldString: 'first', newString: 'second' } }],
          [
            {
              name: 'write',
              get args() {
                return { filePath: a(scratch!), content: 'second\n' };
              },
            },
          ],
          [{ name: 'bash', args: { command: 'echo other > other.txt', description: 'write other' } }],
          'done',
        ],
      },
    );
    scratch = s;
    const first = runOpencode(s, 'work on a.txt [[FIRST]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'FIRST' && r.step === 1), 120_000);
    expect(readFileSync(a(s), 'utf8')).toBe('first\n');
    const held = await activeLocks(s.repo);
    expect(held).toMatchObject([{ pattern: 'a.txt' }]);
    const firstOwner = held[0]!.owner;
    expect(firstOwner).toMatch(/^opencode-ses_[A-Za-z0-9]+$/);

    const second = await runOpencode(s, 'work on a.txt too [[SECOND]]');
    expect(second.code).toBe(0);
    expect(outputsOf(server, 'SECOND').map(deniedByIc)).toEqual([true, true, false]);
    expect(outputsOf(server, 'SECOND')[0]).toContain(`reserved by ${firstOwner}`);
    expect(readFileSync(a(s), 'utf8')).toBe('first\n');
    expect(readFileSync(join(s.repo, 'other.txt'), 'utf8')).toBe('other\n');

    secondDone = true;
    expect((await first).code).toBe(0);
    const log = await events(s.repo);
    expect(log.filter((e) => e.type === 'conflict').map((e) => [e.owner.slice(0, 9), e.pattern])).toEqual([
      ['opencode-', 'a.txt'],
      ['opencode-', 'a.txt'],
    ]);
    // The second session's shell write of other.txt was reserved for it (shell custody) and goes at its exit too.
    const released = log.filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern, e.reason]);
    expect(released).toHaveLength(2);
    expect(released).toContainEqual([firstOwner, 'a.txt', 'session ended']);
    expect(released).toContainEqual([expect.stringMatching(/^opencode-/), 'other.txt', 'session ended']);
    expect(await activeLocks(s.repo)).toEqual([]);
    // OpenCode's own files in .opencode/ ignore themselves; the plugin is in .git/info/exclude.
    expect(execFileSync('git', ['-C', s.repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })).toBe(' M a.txt\n?? opencode.json\n?? other.txt\n');
  });

  it('a shell write on a held file is denied and changes nothing', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { SHELL: [[{ name: 'bash', args: { command: 'echo shell > a.txt', description: 'write a' } }], 'done'] });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    expect((await runOpencode(s, 'shell [[SHELL]]')).code).toBe(0);
    expect(outputsOf(server, 'SHELL').map(deniedByIc)).toEqual([true]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
  });
});
