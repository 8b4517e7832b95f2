import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { startOpenAiMock, type OpenAiMock } from './mock-openai.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { runCodex, writeCodexConfig } from './codex';
import { activeLocks, baseEnv, CODEX, events, IC_BIN, ic, makeScratch, type Scratch } from './support';

// Session truth (issue #20, docs/sessions.md) with the real clients: who an agent is comes from its live
// process, a killed client's locks go at the next call, and `claim --ask MESSAGE` reaches the holder's model.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

const update = (file: string, from: string, to: string) => `*** Begin Patch\n*** Update File: ${file}\n@@\n-${from}\n+${to}\n*** End Patch\n`;
const deniedByIc = (output: string) => output.includes('ic: another agent is working on this file');
const Q = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

async function codexSetup(files: Record<string, string>, scripts: Record<string, unknown[]>, targets: string[] = ['--codex']): Promise<{ s: Scratch; server: OpenAiMock }> {
  const s = makeScratch(files);
  scratches.push(s);
  const server = await startOpenAiMock(scripts);
  closers.push(server.close);
  writeCodexConfig(s, server.url);
  const install = await ic(s.repo, ['coord', 'install', ...targets, '--trust'], { CODEX_HOME: s.home });
  expect(install.code).toBe(0);
  return { s, server };
}

async function waitFor(condition: () => boolean, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUpAt) throw new Error('timed out waiting for the client');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('Codex, real binary: one agent, one owner', () => {
  it('two Codex sessions with one exported IC_OWNER: the second cannot patch the first one’s file', async () => {
    let firstMayEnd = false;
    const { s, server } = await codexSetup(
      { 'a.txt': 'alpha\n' },
      {
        FIRST: [[{ patch: update('a.txt', 'alpha', 'first') }], { until: () => firstMayEnd, then: 'done' }],
        SECOND: [[{ patch: update('a.txt', 'first', 'second') }], 'done'],
      },
    );
    const first = runCodex(s, 'patch [[FIRST]]', { IC_OWNER: 'team-shared' });
    await waitFor(() => server.requests.some((r) => r.conversation === 'FIRST' && r.step === 1));
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('first\n');
    const second = await runCodex(s, 'patch too [[SECOND]]', { IC_OWNER: 'team-shared' });
    expect(second.code).toBe(0);
    expect(
      deniedByIc(
        server.requests
          .filter((r) => r.conversation === 'SECOND')
          .at(-1)!
          .outputs.at(-1)!.output,
      ),
    ).toBe(true);
    expect(readFileSync(join(s.repo, 'a.txt'), 'utf8')).toBe('first\n');
    firstMayEnd = true;
    expect((await first).code).toBe(0);
    const conflict = (await events(s.repo)).find((e) => e.type === 'conflict');
    expect(conflict?.owner).toMatch(/^team-shared~\d+$/);
  });

  it('Codex without IC_OWNER claims from its shell and commits the file it patched, with the guard on', async () => {
    const commit = `git add a.txt && git -c user.email=c@example.com -c user.name=C commit -q -m "codex change" && echo COMMITTED`;
    const { s, server } = await codexSetup(
      { 'a.txt': 'alpha\n' },
      { WORK: [[{ patch: update('a.txt', 'alpha', 'codex') }], [{ shell: `${Q(IC_BIN)} coord claim bd-1` }], [{ shell: commit }], 'done'] },
      ['--codex', '--git'],
    );
    const run = await runCodex(s, 'work [[WORK]]');
    expect(run.code).toBe(0);
    const outputs = server.requests
      .filter((r) => r.conversation === 'WORK')
      .at(-1)!
      .outputs.map((o) => o.output);
    expect(outputs[1]).toContain(`"owner":"codex-${run.threadId}"`);
    expect(outputs[2]).toContain('COMMITTED');
    expect(execFileSync('git', ['-C', s.repo, 'show', 'HEAD:a.txt'], { encoding: 'utf8' })).toBe('codex\n');
  });

  it('Codex killed with SIGTERM frees its locks at the next ic call', async () => {
    const { s, server } = await codexSetup({ 'a.txt': 'alpha\n' }, { HOLD: [[{ patch: update('a.txt', 'alpha', 'held') }], { until: () => false, then: 'done' }] });
    const child = spawn(CODEX.command, [...CODEX.prefix, 'exec', '--json', '--skip-git-repo-check', 'hold [[HOLD]]'], {
      cwd: s.repo,
      env: baseEnv(s.home, { CODEX_HOME: s.home, MOCK_API_KEY: 'x' }),
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.stdin.end();
    await waitFor(() => server.requests.some((r) => r.conversation === 'HOLD' && r.step === 1));
    expect((await activeLocks(s.repo)).map((l) => l.pattern)).toEqual(['a.txt']);
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    await new Promise((resolve) => setTimeout(resolve, 500)); // the wrapper's own child ends right after it
    const next = await ic(s.repo, ['coord', 'reserve', 'a.txt', '--owner', 'bob']);
    expect(next.code).toBe(0);
    expect((await activeLocks(s.repo)).map((l) => [l.owner, l.pattern])).toEqual([['bob', 'a.txt']]);
    expect((await events(s.repo)).find((e) => e.type === 'released')?.reason).toContain('client process');
  });
});

describe('hand-off that arrives: claim --ask MESSAGE reaches the holder model', () => {
  const MESSAGE = 'please hand bd-1 over, I have the release fix ready';

  it('Codex: the text is in the holder model’s next request', async () => {
    let asked = false;
    const { s, server } = await codexSetup(
      { 'a.txt': 'alpha\n', 'b.txt': 'beta\n' },
      { HOLDER: [[{ patch: update('a.txt', 'alpha', 'mine') }], [{ shell: `${Q(IC_BIN)} coord claim bd-1` }], { until: () => asked, then: [{ patch: update('b.txt', 'beta', 'mine') }] }, 'done'] },
    );
    const holder = runCodex(s, 'hold [[HOLDER]]');
    await waitFor(() => server.requests.some((r) => r.conversation === 'HOLDER' && r.step === 2));
    const ask = await ic(s.repo, ['coord', 'claim', 'bd-1', '--ask', MESSAGE, '--owner', 'asker']);
    expect(ask.json.handoff_requested.message).toBe(MESSAGE);
    asked = true;
    expect((await holder).code).toBe(0);
    const bodies = server.requests.filter((r) => r.conversation === 'HOLDER').map((r) => r.body);
    expect(bodies.slice(0, 3).some((body) => body.includes(MESSAGE))).toBe(false);
    expect(bodies.at(-1)).toContain(MESSAGE);
  });

  it('Claude Code: the text is in the holder model’s next request', async () => {
    const s = makeScratch({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    scratches.push(s);
    prepareClaudeHome(s);
    expect((await ic(s.repo, ['coord', 'install', '--claude'])).code).toBe(0);
    let asked = false;
    const a = join(s.repo, 'a.txt');
    const b = join(s.repo, 'b.txt');
    const server = await startAnthropicMock({
      HOLDER: [
        [
          { name: 'Read', input: { file_path: a } },
          { name: 'Read', input: { file_path: b } },
        ],
        [{ name: 'Edit', input: { file_path: a, old_string: 'alpha', new_string: 'mine' } }],
        [{ name: 'Bash', input: { command: `${Q(IC_BIN)} coord claim bd-1` } }],
        { until: () => asked, then: [{ name: 'Edit', input: { file_path: b, old_string: 'beta', new_string: 'mine' } }] },
        'done',
      ],
    });
    closers.push(server.close);
    const holder = runClaude(s, server.url, 'hold [[HOLDER]]', { args: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'] });
    await waitFor(() => server.requests.some((r) => r.conversation === 'HOLDER' && r.step === 3));
    expect((await activeLocks(s.repo)).find((l) => l.pattern === 'bd-1')?.owner).toMatch(/^claude-/);
    const ask = await ic(s.repo, ['coord', 'claim', 'bd-1', '--ask', MESSAGE, '--owner', 'asker']);
    expect(ask.json.handoff_requested.message).toBe(MESSAGE);
    asked = true;
    expect((await holder).code).toBe(0);
    const bodies = server.requests.filter((r) => r.conversation === 'HOLDER').map((r) => r.body);
    expect(bodies.slice(0, 4).some((body) => body.includes(MESSAGE))).toBe(false);
    expect(bodies.at(-1)).toContain(MESSAGE);
  });
});

describe('Claude Code, real binary: one session resumed twice at once', () => {
  it('the second resume cannot edit the first one’s file', async () => {
    const s = makeScratch({ 'a.txt': 'alpha\n' });
    scratches.push(s);
    prepareClaudeHome(s);
    expect((await ic(s.repo, ['coord', 'install', '--claude'])).code).toBe(0);
    const a = join(s.repo, 'a.txt');
    let firstMayEnd = false;
    const server = await startAnthropicMock({
      BASE: ['ready'],
      R1: [[{ name: 'Read', input: { file_path: a } }], [{ name: 'Edit', input: { file_path: a, old_string: 'alpha', new_string: 'first' } }], { until: () => firstMayEnd, then: 'done' }],
      R2: [[{ name: 'Read', input: { file_path: a } }], [{ name: 'Write', input: { file_path: a, content: 'second\n' } }], 'done'],
    });
    closers.push(server.close);
    const base = await runClaude(s, server.url, 'start [[BASE]]');
    expect(base.sessionId).toBeDefined();
    const first = runClaude(s, server.url, 'go on [[R1]]', { args: ['--permission-mode', 'acceptEdits', '--resume', base.sessionId!] });
    await waitFor(() => server.requests.some((r) => r.conversation === 'R1' && r.step === 2));
    expect(readFileSync(a, 'utf8')).toBe('first\n');
    const second = await runClaude(s, server.url, 'go on too [[R2]]', { args: ['--permission-mode', 'acceptEdits', '--resume', base.sessionId!] });
    expect(second.code).toBe(0);
    const results = server.requests.filter((r) => r.conversation === 'R2').at(-1)!.toolResults;
    expect(results.some((r) => r.text.includes('ic: another agent is working on this file'))).toBe(true);
    expect(readFileSync(a, 'utf8')).toBe('first\n');
    firstMayEnd = true;
    expect((await first).code).toBe(0);
    const conflict = (await events(s.repo)).find((e) => e.type === 'conflict');
    expect(conflict?.owner).toMatch(new RegExp(`^claude-${base.sessionId}~\\d+$`));
  });
});

describe('Codex, real binary: a linked worktree created after install', () => {
  it('runs ic’s hooks there (post-checkout installed them): a patch of a file another agent holds is denied; doctor there says the hooks are active', async () => {
    const s = makeScratch({ 'a.txt': 'alpha\n' });
    scratches.push(s);
    const linked = `${s.repo}-linked`;
    scratches.push({ ...s, cleanup: () => execFileSync('rm', ['-rf', linked]) });
    const server = await startOpenAiMock({ LINKED: [[{ patch: update('a.txt', 'alpha', 'patched') }], 'done'] });
    closers.push(server.close);
    writeCodexConfig(s, server.url, `[projects.${JSON.stringify(linked)}]\ntrust_level = "trusted"\n`);
    expect((await ic(s.repo, ['coord', 'install', '--codex', '--git', '--trust'], { CODEX_HOME: s.home })).code).toBe(0);
    execFileSync('git', ['-C', s.repo, 'worktree', 'add', '-q', linked], { env: { ...process.env, CODEX_HOME: s.home }, stdio: 'pipe' });
    expect((await ic(linked, ['coord', 'reserve', 'a.txt', '--owner', 'other-agent'])).code).toBe(0);
    const run = await runCodex({ ...s, repo: linked }, 'patch it [[LINKED]]');
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(linked, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect((await events(linked)).filter((e) => e.type === 'conflict').map((e) => e.pattern)).toEqual(['a.txt']);
    const doctor = await ic(linked, ['doctor'], { CODEX_HOME: s.home });
    expect(doctor.json.checks.find((c: any) => c.name === 'agent_hooks')).toMatchObject({ ok: true, detail: expect.stringContaining('Codex') });
  });
});
