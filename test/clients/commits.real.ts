import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpenAiMock, type OpenAiMock } from './mock-openai.mjs';
import { runCodex, writeCodexConfig } from './codex';
import { activeLocks, IC_BIN, ic, makeScratch, type Scratch } from './support';

// Real Codex committing through ic's git hooks, with no IC_OWNER anywhere: the commit-message gate finds
// the session by its processes, as the guard does; and `git commit --no-verify` of a file another session
// holds is refused at the ref update.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

const update = (file: string, from: string, to: string) => `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`;
const commit = (flags: string, message: string) => `git -c user.email=t@example.com -c user.name=T commit -q ${flags} -m ${JSON.stringify(message)}`;
const subject = (s: Scratch) => execFileSync('git', ['-C', s.repo, 'log', '-1', '--format=%s'], { encoding: 'utf8' }).trim();

async function setup(files: Record<string, string>, scripts: Record<string, unknown[]>): Promise<{ s: Scratch; server: OpenAiMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startOpenAiMock(scripts);
  closers.push(server.close);
  writeCodexConfig(s, server.url);
  const install = await ic(s.repo, ['coord', 'install', '--codex', '--trust', '--git', '--commit-gate'], { CODEX_HOME: s.home });
  expect(install.code).toBe(0);
  return { s, server };
}

const outputs = (server: OpenAiMock, conversation: string) =>
  server.requests
    .filter((r) => r.conversation === conversation)
    .at(-1)!
    .outputs.map((o) => o.output);

describe('Codex commits through the git hooks, real binary', () => {
  it('a default Codex session (no IC_OWNER) claims bd-9 from its shell and commits "bd-9: …" through the guard and the gate', async () => {
    const { s, server } = await setup(
      { 'a.txt': 'alpha\n' },
      {
        GATE: [[{ patch: update('a.txt', 'alpha', 'patched') }], [{ shell: `'${IC_BIN}' coord claim bd-9` }], [{ shell: `git add a.txt && ${commit('', 'bd-9: patch a')}` }], 'done'],
      },
    );
    const run = await runCodex(s, 'patch, claim and commit [[GATE]]');
    expect(run.code).toBe(0);
    const owner = `codex-${run.threadId}`;
    expect(await activeLocks(s.repo)).toEqual([]); // session end released a.txt and bd-9
    expect(outputs(server, 'GATE').join('\n')).not.toMatch(/IC_OWNER is not set|commit refused/);
    expect(subject(s)).toBe('bd-9: patch a');
    expect(execFileSync('git', ['-C', s.repo, 'show', 'HEAD:a.txt'], { encoding: 'utf8' })).toBe('patched\n');
    const claimed = (await ic(s.repo, ['coord', 'events', '--limit', '100'])).json.events.find((e: any) => e.pattern === 'bd-9');
    expect(claimed.owner).toBe(owner);
  });

  it('`git commit --no-verify` of a file another session holds is refused at the ref update; nothing lands', async () => {
    const { s, server } = await setup({ 'a.txt': 'alpha\n' }, { TAKE: [[{ shell: `git add a.txt && ${commit('--no-verify', 'take a')}` }], 'done'] });
    expect((await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'claude-holder'])).code).toBe(0);
    writeFileSync(join(s.repo, 'a.txt'), 'the holder is still working\n');
    const run = await runCodex(s, 'commit it [[TAKE]]');
    expect(run.code).toBe(0);
    const said = outputs(server, 'TAKE').join('\n');
    expect(said).toContain('ic: commit refused');
    expect(said).toContain('held by claude-holder');
    expect(said).not.toMatch(/IC_GUARD|no-verify/);
    expect(subject(s)).toBe('init');
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('the holder is still working\n');
  });
});
