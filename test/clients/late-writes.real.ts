import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAnthropicMock } from './mock-anthropic.mjs';
import { prepareClaudeHome, runClaude } from './claude';
import { events, ic, makeScratch, type Scratch } from './support';

// Late writes (issue #34, item 5) with the real Claude Code binary: a Bash command past its `timeout` is
// moved to the background and its PostToolUse fires then; what it writes afterwards to a file another
// session holds is noticed at the session's next hook: a `late_write` event, and the model is told.

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
