import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiMock, type OpenAiMock } from './mock-openai.mjs';
import { codexHookList, runCodex, writeCodexConfig } from './codex';
import { activeLocks, events, ic, makeScratch, type Scratch } from './support';

// Real Codex (test/clients/versions.json) with `ic coord install --codex` done in a scratch repo, against
// a scripted local Responses API. What counts is the files on disk afterwards, and the event log.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

const update = (file: string, from: string, to: string) => `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`;
const deniedByIc = (output: string) => output.includes('blocked by PreToolUse hook') && output.includes('ic: another agent is working on this file');

async function setup(files: Record<string, string>, scripts: Record<string, unknown[]>, options: { trust: boolean }): Promise<{ s: Scratch; server: OpenAiMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startOpenAiMock(scripts);
  closers.push(server.close);
  writeCodexConfig(s, server.url);
  const install = await ic(s.repo, ['coord', 'install', '--codex', ...(options.trust ? [] : ['--no-trust'])], { CODEX_HOME: s.home });
  expect(install.code).toBe(0);
  return { s, server };
}

const lastOutputs = (server: OpenAiMock, conversation: string) => server.requests.filter((r) => r.conversation === conversation).at(-1)!.outputs;

describe('Codex, real binary', () => {
  it('untrusted hooks are skipped by Codex and reported by `ic doctor`; a plain `install --codex` trusts them and they run', async () => {
    const patch = update('a.txt', 'alpha', 'patched');
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { UNTRUSTED: [[{ patch }], 'done'], TRUSTED: [[{ patch }], 'done'] }, { trust: false });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    const doctor = await ic(s.repo, ['doctor'], { CODEX_HOME: s.home });
    expect(doctor.code).toBe(1);
    expect(doctor.json.checks.find((c: any) => c.name === 'codex_trust')).toMatchObject({ ok: false, severity: 'warning' });
    expect((await codexHookList(s)).map((h) => h.trustStatus)).toEqual(Array(6).fill('untrusted')); // pre-edit, pre-shell, session-end, post-tool, turn-end (Stop), prompt
    // What the issue saw: without trust Codex silently skips ic's hook and patches the held file.
    await runCodex(s, 'patch it [[UNTRUSTED]]');
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('patched\n');

    const trust = await ic(s.repo, ['coord', 'install', '--codex'], { CODEX_HOME: s.home });
    expect(trust.json.changed).toEqual([{ file: join(s.home, 'config.toml'), action: 'updated' }]);
    // Codex itself now calls them trusted: ic computed the very hash Codex computes.
    const listed = await codexHookList(s);
    expect(listed.map((h) => h.trustStatus)).toEqual(Array(6).fill('trusted'));
    const config = readFileSync(join(s.home, 'config.toml'), 'utf8');
    for (const hook of listed) expect(config).toContain(`[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}`);
    expect((await ic(s.repo, ['doctor'], { CODEX_HOME: s.home })).json.checks.find((c: any) => c.name === 'codex_trust')).toMatchObject({ ok: true });
    await ic(s.repo, ['coord', 'release', '--all', '--owner', 'other-agent']);
    await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent']);
    writeFileSync(join(s.repo, 'a.txt'), 'alpha\n');
    const run = await runCodex(s, 'patch it [[TRUSTED]]');
    expect(run.code).toBe(0);
    expect(deniedByIc(lastOutputs(server, 'TRUSTED').at(-1)!.output)).toBe(true);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('apply_patch as a tool and as a heredoc through the shell are denied on a held file; other shell commands run', async () => {
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n', 'sub/b.txt': 'beta\n' },
      {
        TOOL: [[{ patch: update('a.txt', 'alpha', 'tool') }], 'done'],
        SHELL: [
          [{ shell: `apply_patch <<'EOF'\n${update('a.txt', 'alpha', 'heredoc')}EOF\n` }],
          [{ shell: `cd sub && applypatch <<"PATCH"\n${update('b.txt', 'beta', 'heredoc')}PATCH\n` }],
          [{ shell: 'echo other > other.txt' }],
          'done',
        ],
      },
      { trust: true },
    );
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', 'sub/b.txt', '--owner', 'other-agent'])).code).toBe(0);
    expect((await runCodex(s, 'patch it [[TOOL]]')).code).toBe(0);
    expect(deniedByIc(lastOutputs(server, 'TOOL').at(-1)!.output)).toBe(true);
    expect((await runCodex(s, 'patch it through the shell [[SHELL]]')).code).toBe(0);
    const outputs = lastOutputs(server, 'SHELL').map((o) => o.output);
    expect(outputs.slice(0, 2).map(deniedByIc)).toEqual([true, true]);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(readFileSync(join(s.repo, 'sub', 'b.txt'), 'utf8')).toBe('beta\n');
    expect(readFileSync(join(s.repo, 'other.txt'), 'utf8')).toBe('other\n');
    expect((await events(s.repo)).filter((e) => e.type === 'conflict').map((e) => e.pattern)).toEqual(['a.txt', 'a.txt', 'sub/b.txt']);
  });

  it('a Codex session reserves what it patches (tool or heredoc), and its end releases it; IC_OWNER names the owner', async () => {
    const { s } = await setup(
      { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' },
      {
        MINE: [[{ patch: update('a.txt', 'alpha', 'mine') }], [{ shell: `apply_patch <<'EOF'\n${update('b.txt', 'beta', 'mine')}EOF\n` }], 'done'],
        NAMED: [[{ patch: update('a.txt', 'mine', 'named') }], 'done'],
      },
      { trust: true },
    );
    const run = await runCodex(s, 'patch [[MINE]]');
    expect(run.code).toBe(0);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(s.repo, 'b.txt'), 'utf8')).toBe('mine\n');
    const owner = `codex-${run.threadId}`;
    const log = await events(s.repo);
    expect(log.filter((e) => e.type === 'reserved').map((e) => [e.owner, e.pattern])).toEqual([
      [owner, 'a.txt'],
      [owner, 'b.txt'],
    ]);
    expect(log.filter((e) => e.type === 'released').map((e) => [e.owner, e.pattern, e.reason])).toEqual([
      [owner, 'a.txt', 'session ended'],
      [owner, 'b.txt', 'session ended'],
    ]);
    expect(await activeLocks(s.repo)).toEqual([]);
    // Started as `IC_OWNER=codex-main codex`: its edits are codex-main's, so its commits pass the guard.
    expect((await runCodex(s, 'again [[NAMED]]', { IC_OWNER: 'codex-main' })).code).toBe(0);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('named\n');
    expect((await events(s.repo)).filter((e) => e.type === 'reserved').at(-1)).toMatchObject({ owner: 'codex-main', pattern: 'a.txt' });
  });
});
