import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { startOpenAiMock, type OpenAiRequest } from './mock-openai.mjs';
import { resumeCodex, runCodex, writeCodexConfig } from './codex';
import { events, ic, makeScratch, type Scratch } from './support';

// Late writes (issue #34, item 5) with the real Claude Code and Codex binaries. Claude: a Bash command past
// its `timeout` is moved to the background and its PostToolUse fires then; what it writes afterwards to a
// file another session holds is noticed at the session's next hook: a `late_write` event, and the model is
// told. Codex: a command past its yield stays open until its late PostToolUse, which puts the file back.

const scratches: Scratch[] = [];
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
  while (scratches.length) scratches.pop()!.cleanup();
});

describe('Claude Code, real binary: a command moved to the background at its timeout', () => {
  it('its write to a held file after the after hook is a late_write event, the writer’s model is told, and the file is back', async () => {
    // slow.py writes only after the Bash timeout (1 s) has moved it to the background; wait.py outlasts it.
    const s = makeScratch({
      'held.txt': 'the holder’s committed text\n',
      'slow.py': "import time\ntime.sleep(3)\nopen('held.txt','w').write('written late')\n",
      'wait.py': "import os, time\nfor _ in range(200):\n    time.sleep(0.05)\n    if open('held.txt').read() == 'written late': break\ntime.sleep(0.2)\n",
    });
    scratches.push(s);
    prepareClaudeHome(s);
    expect((await ic(s.repo, ['coord', 'install', '--claude'])).code).toBe(0);
    const holder = 'claude-holder-session';
    expect((await ic(s.repo, ['coord', 'reserve', 'held.txt'], { IC_OWNER: holder, IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() })).code).toBe(0);
    const server = await startAnthropicMock({
      WRITER: [
        [{ name: 'Bash', input: { command: 'python3 slow.py', timeout: 1000, description: 'generate' } }],
        [{ name: 'Bash', input: { command: 'python3 wait.py', description: 'wait' } }],
        'done',
      ],
    });
    closers.push(server.close);
    const writer = await runClaude(s, server.url, 'generate [[WRITER]]', { args: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'] });
    expect(writer.code, writer.stderr).toBe(0);
    // The late write landed while the writer's next command (wait.py) ran: that command's after hook first
    // records it as written late by slow.py (its watch), then puts the file back as that command's change.
    const all = await events(s.repo);
    const late = all.filter((e) => e.type === 'late_write');
    expect(late).toHaveLength(1);
    expect(late[0]).toMatchObject({ owner: `claude-${writer.sessionId}`, pattern: 'held.txt', detail: { holder, command: 'python3 slow.py' } });
    expect(all.filter((e) => e.type === 'restored')).toHaveLength(1);
    expect(readFileSync(join(s.repo, 'held.txt'), 'utf8')).toBe('the holder’s committed text\n');
    const after = server.requests.find((r) => r.conversation === 'WRITER' && r.step === 2);
    expect(after, 'the model was asked again after the second Bash call').toBeDefined();
    expect(after!.body).toContain('a job your shell command left running');
  });
});

describe('Codex, real binary: a command still running past its yield time', () => {
  // Codex 0.169 answers an exec_command still running at its yield_time_ms with "Process running with session ID
  // N"; its PostToolUse comes only once the process has exited and the model polled it with write_stdin.
  const cases = [
    { between: 'nothing', title: 'its write to a held file before the model polls it is put back by its late after hook' },
    { between: 'echo other', title: 'the writer runs another command before polling: its late after hook still puts the file back' },
  ];
  for (const { between, title } of cases)
    it(`${title}; the model is told; coord events has it`, async () => {
      const s = makeScratch({ 'held.txt': 'the holder’s committed text\n', 'late.py': "import time\ntime.sleep(2)\nopen('held.txt','w').write('written late')\n" });
      scratches.push(s);
      const held = join(s.repo, 'held.txt');
      const sessionOf = (output: string) => Number(/Process running with session ID (\d+)/.exec(output)?.[1] ?? -1);
      const poll = [{ tool: 'write_stdin', args: (request: OpenAiRequest) => ({ session_id: sessionOf(request.outputs[0]!.output), chars: '', yield_time_ms: 30_000 }) }];
      let beforeNext = '';
      // The model's next call waits until the command has written: the write lands while the command is open, with no after hook yet.
      const afterWrite = (then: unknown) => ({ until: () => (beforeNext = readFileSync(held, 'utf8')) === 'written late', then });
      const server = await startOpenAiMock({
        WRITER: [[{ shell: 'python3 late.py', args: { yield_time_ms: 500 } }], ...(between === 'nothing' ? [afterWrite(poll)] : [afterWrite([{ shell: between }]), poll]), 'done'],
      });
      closers.push(server.close);
      writeCodexConfig(s, server.url);
      expect((await ic(s.repo, ['coord', 'install', '--codex', '--trust'], { CODEX_HOME: s.home })).code).toBe(0);
      const holder = 'claude-holder-session';
      expect((await ic(s.repo, ['coord', 'reserve', 'held.txt'], { IC_OWNER: holder, IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() })).code).toBe(0);
      const run = await runCodex(s, 'rewrite held.txt [[WRITER]]');
      expect(run.code, run.stderr).toBe(0);
      const writer = server.requests.filter((r) => r.conversation === 'WRITER');
      expect(writer.map((r) => r.step)).toEqual(between === 'nothing' ? [0, 1, 2] : [0, 1, 2, 3]);
      expect(writer[1]!.outputs[0]!.output).toMatch(/Process running with session ID \d+/); // yielded before the write
      expect(beforeNext).toBe('written late');
      const last = writer.at(-1)!;
      expect(last.outputs.at(-1)!.output).toContain('Process exited with code 0'); // the poll
      expect(readFileSync(held, 'utf8')).toBe('the holder’s committed text\n');
      expect(last.body).toContain('so it was put back');
      const all = await events(s.repo);
      expect(all.filter((e) => e.type === 'late_write')).toEqual([]);
      const restored = all.filter((e) => e.type === 'restored');
      expect(restored).toHaveLength(1);
      expect(restored[0]).toMatchObject({
        owner: `codex-${run.threadId}`,
        pattern: 'held.txt',
        detail: { holder, command: 'python3 late.py', call_id: 'call_WRITER_0_0' }, // the exec_command's own after hook
      });
      // What the command wrote is kept: one git command gets it back.
      const saved = (restored[0] as unknown as { detail: { saved: string } }).detail.saved;
      expect(execFileSync('git', ['-C', s.repo, 'cat-file', 'blob', saved], { encoding: 'utf8' })).toBe('written late');
    });

  it('a command the model never polls: its write is put back at the turn’s end (Stop), and the model is told at its next turn', async () => {
    const s = makeScratch({ 'held.txt': 'the holder’s committed text\n', 'late.py': "import time\ntime.sleep(2)\nopen('held.txt','w').write('written late')\n" });
    scratches.push(s);
    const held = join(s.repo, 'held.txt');
    let wrote = false;
    // The model ends its turn once the command has written, without polling it: no PostToolUse ever comes.
    const server = await startOpenAiMock({
      WRITER: [[{ shell: 'python3 late.py', args: { yield_time_ms: 500 } }], { until: () => wrote || (wrote = readFileSync(held, 'utf8') === 'written late'), then: 'done' }],
    });
    closers.push(server.close);
    writeCodexConfig(s, server.url);
    expect((await ic(s.repo, ['coord', 'install', '--codex', '--trust'], { CODEX_HOME: s.home })).code).toBe(0);
    const holder = 'claude-holder-session';
    expect((await ic(s.repo, ['coord', 'reserve', 'held.txt'], { IC_OWNER: holder, IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() - 30_000).toISOString() })).code).toBe(0);
    const run = await runCodex(s, 'rewrite held.txt [[WRITER]]');
    expect(run.code, run.stderr).toBe(0);
    expect(wrote).toBe(true);
    const first = server.requests.filter((r) => r.conversation === 'WRITER');
    expect(first.map((r) => r.step)).toEqual([0, 1]);
    expect(first[1]!.outputs[0]!.output).toMatch(/Process running with session ID \d+/); // never polled
    expect(readFileSync(held, 'utf8')).toBe('the holder’s committed text\n');
    const restored = (await events(s.repo)).filter((e) => e.type === 'restored');
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({ owner: `codex-${run.threadId}`, pattern: 'held.txt', detail: { holder, call_id: 'call_WRITER_0_0' } });
    const saved = (restored[0] as unknown as { detail: { saved: string } }).detail.saved;
    expect(execFileSync('git', ['-C', s.repo, 'cat-file', 'blob', saved], { encoding: 'utf8' })).toBe('written late');
    // The session's next turn (codex exec resume): its UserPromptSubmit hands the model what happened.
    const next = await resumeCodex(s, run.threadId!, 'go on');
    expect(next.code, next.stderr).toBe(0);
    const resumed = server.requests.filter((r) => r.conversation === 'WRITER').slice(first.length);
    expect(resumed.length).toBeGreaterThan(0);
    expect(resumed[0]!.body).toContain('\\"held.txt\\" is held by claude-holder-session: your command changed it, so it was put back');
  });
});
