import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { startOpenAiMock } from './mock-openai.mjs';
import { runCodex, writeCodexConfig } from './codex';
import { events, ic, makeScratch, type Scratch } from './support';

// Custody after a shell command (#19, step 3) with the real Claude Code binary: its Bash tool writes a file
// another session holds with a python one-liner; the PostToolUse hook puts it back, the model's next
// request carries the message, and the event log records the restore.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

describe('Claude Code, real binary: a held file written through Bash is put back', () => {
  // bypassPermissions is refused to root, which these runs are on this machine; acceptEdits with Bash allowed runs the same hooks.
  it('a python3 script in Bash (acceptEdits, Bash allowed): the holder’s content is back, the model is told, coord events has it', async () => {
    // A script the before-command check cannot read (a `python3 -c` with a literal path would be denied before it ran).
    const s = makeScratch({ 'held.txt': 'the holder’s committed text\n', 'free.txt': 'free\n', 'w.py': "open('held.txt','w').write('x')\n" });
    scratches.push(s);
    prepareClaudeHome(s);
    expect((await ic(s.repo, ['coord', 'install', '--claude'])).code).toBe(0);
    // Another session holds the file, reserved a little before this session starts.
    const holder = 'claude-holder-session';
    const reserve = await ic(s.repo, ['coord', 'reserve', 'held.txt'], { IC_OWNER: holder, IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() });
    expect(reserve.code).toBe(0);
    const command = 'python3 w.py && echo changed > free.txt';
    const server = await startAnthropicMock({ WRITER: [[{ name: 'Bash', input: { command, description: 'write files' } }], 'done'] });
    closers.push(server.close);
    const args = ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'];
    const writer = await runClaude(s, server.url, 'rewrite the files [[WRITER]]', { args });
    expect(writer.code, writer.stderr).toBe(0);
    expect(readFileSync(join(s.repo, 'held.txt'), 'utf8')).toBe('the holder’s committed text\n');
    expect(readFileSync(join(s.repo, 'free.txt'), 'utf8')).toBe('changed\n'); // nobody holds it: the command's write stays
    const next = server.requests.find((r) => r.conversation === 'WRITER' && r.step === 1);
    expect(next, 'the model was asked again after the Bash call').toBeDefined();
    expect(next!.body).toContain('so it was put back');
    expect(next!.body).toContain(holder);
    const restored = (await events(s.repo)).filter((e) => e.type === 'restored');
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({ owner: `claude-${writer.sessionId}`, pattern: 'held.txt' });
  });
});

describe('Codex, real binary: a held file written through its shell is put back', () => {
  it('a python3 script through exec_command: the holder’s content is back, the model is told, coord events has it', async () => {
    const s = makeScratch({ 'held.txt': 'the holder’s committed text\n', 'w.py': "open('held.txt','w').write('x')\n" });
    scratches.push(s);
    const command = 'python3 w.py';
    const server = await startOpenAiMock({ WRITER: [[{ shell: command }], 'done'] });
    closers.push(server.close);
    writeCodexConfig(s, server.url);
    expect((await ic(s.repo, ['coord', 'install', '--codex', '--trust'], { CODEX_HOME: s.home })).code).toBe(0);
    const holder = 'claude-holder-session';
    expect((await ic(s.repo, ['coord', 'reserve', 'held.txt'], { IC_OWNER: holder, IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() })).code).toBe(0);
    const run = await runCodex(s, 'rewrite held.txt [[WRITER]]');
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(join(s.repo, 'held.txt'), 'utf8')).toBe('the holder’s committed text\n');
    const next = server.requests.find((r) => r.conversation === 'WRITER' && r.step === 1);
    expect(next, 'the model was asked again after the shell call').toBeDefined();
    expect(next!.body).toContain('so it was put back');
    const restored = (await events(s.repo)).filter((e) => e.type === 'restored');
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({ owner: `codex-${run.threadId}`, pattern: 'held.txt' });
  });
});
