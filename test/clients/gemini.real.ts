import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGeminiMock, type GeminiMock } from './mock-gemini.mjs';
import { prepareGeminiHome, runGemini, waitFor } from './agents';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real Gemini CLI (test/clients/versions.json) with `ic coord install --gemini` done in a scratch repo,
// against a scripted local Gemini API. What counts is the files on disk afterwards, and the event log.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

async function setup(files: Record<string, string>, scripts: Record<string, unknown[]>, options: { trust: boolean } = { trust: true }): Promise<{ s: Scratch; server: GeminiMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  prepareGeminiHome(s);
  const server = await startGeminiMock(scripts);
  closers.push(server.close);
  const install = await ic(s.repo, ['coord', 'install', '--gemini', ...(options.trust ? ['--trust'] : [])], { HOME: s.home });
  expect(install.code).toBe(0);
  return { s, server };
}

const write = (file_path: string, content: string) => ({ name: 'write_file', args: { file_path, content } });
const deniedByIc = (output: string) => output.includes('ic: another agent is working on this file');
const outputsOf = (server: GeminiMock, conversation: string) =>
  server.requests
    .filter((r) => r.conversation === conversation)
    .at(-1)!
    .outputs.map((o) => o.output);

describe('Gemini CLI, real binary', () => {
  it("two sessions on one file: the second's write_file and replace are denied and change nothing; the first's session end releases it", async () => {
    let secondDone = false;
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n' },
      {
        FIRST: [[write('a.txt', 'first\n')], { until: () => secondDone, then: 'done' }],
        SECOND: [[write('a.txt', 'second\n')], [{ name: 'replace', args: { file_path: 'a.txt', old_string: 'first', new_string: 'second', instruction: 'change it' } }], 'done'],
      },
    );
    const a = join(s.repo, 'a.txt');
    const first = runGemini(s, server.url, 'work on a.txt [[FIRST]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'FIRST' && r.step === 1));
    expect(readFileSync(a, 'utf8')).toBe('first\n');
    const held = await activeLocks(s.repo);
    expect(held).toMatchObject([{ pattern: 'a.txt' }]);
    const firstOwner = held[0]!.owner;
    expect(firstOwner).toMatch(/^gemini-[0-9a-f-]{36}$/);

    const second = await runGemini(s, server.url, 'work on a.txt too [[SECOND]]');
    expect(second.code).toBe(0);
    expect(outputsOf(server, 'SECOND').map(deniedByIc)).toEqual([true, true]);
    expect(outputsOf(server, 'SECOND')[0]).toContain(`reserved by ${firstOwner}`);
    expect(readFileSync(a, 'utf8')).toBe('first\n');

    secondDone = true;
    expect((await first).code).toBe(0);
    const log = await events(s.repo);
    expect(log.filter((e) => e.type === 'conflict').map((e) => [e.owner.slice(0, 7), e.pattern])).toEqual([
      ['gemini-', 'a.txt'],
      ['gemini-', 'a.txt'],
    ]);
    expect(log.filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern, e.reason])).toEqual([[firstOwner, 'a.txt', 'session ended']]);
    expect(await activeLocks(s.repo)).toEqual([]);
  });

  it('`ic doctor` reports the untrusted folder (Gemini would skip the hooks); `install --gemini --trust` trusts it; nothing is left for `git add -A`', async () => {
    const { s } = await setup({ 'a.txt': 'alpha\n' }, {}, { trust: false });
    const doctor = await ic(s.repo, ['doctor'], { HOME: s.home });
    expect(doctor.json.checks.find((c: any) => c.name === 'gemini_trust')).toMatchObject({ ok: false, severity: 'notice' });
    expect(doctor.json.checks.find((c: any) => c.name === 'gemini_hooks')).toMatchObject({ ok: true });
    const trust = await ic(s.repo, ['coord', 'install', '--gemini', '--trust'], { HOME: s.home });
    expect(trust.json.changed).toEqual([{ file: join(s.home, '.gemini', 'trustedFolders.json'), action: 'created' }]);
    expect(JSON.parse(readFileSync(join(s.home, '.gemini', 'trustedFolders.json'), 'utf8'))).toEqual({ [s.repo]: 'TRUST_FOLDER' });
    expect((await ic(s.repo, ['doctor'], { HOME: s.home })).json.checks.find((c: any) => c.name === 'gemini_trust')).toMatchObject({ ok: true });
    const { execFileSync } = await import('node:child_process');
    expect(execFileSync('git', ['-C', s.repo, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' })).toBe('');
  });

  it('a shell command runs when it writes no held file', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { SHELL: [[{ name: 'run_shell_command', args: { command: 'echo other > other.txt' } }], 'done'] });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    expect((await runGemini(s, server.url, 'shell [[SHELL]]')).code).toBe(0);
    expect(readFileSync(join(s.repo, 'other.txt'), 'utf8')).toBe('other\n');
  });

  it('a shell write on a held file is denied and changes nothing', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { SHELL: [[{ name: 'run_shell_command', args: { command: 'echo shell > a.txt' } }], 'done'] });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    expect((await runGemini(s, server.url, 'shell [[SHELL]]')).code).toBe(0);
    expect(outputsOf(server, 'SHELL').map(deniedByIc)).toEqual([true]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
  });
});
