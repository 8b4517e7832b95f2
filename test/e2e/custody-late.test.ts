import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { onPostgres } from '../support/engine';
import { claudeWrite, write } from '../support/custody';

// Issue #34, items 3, 4 and 5, through the real bin, real git and real bash: every work tree a command
// reaches (a cd into another repository, a session started in a parent directory, a linked worktree), the
// holder's own writes never undone (an editor save between commands, a command denied at the prompt that
// never got its after hook), and late writes (a job a command left running, a command the client moved to
// the background, a writer whose after hook comes late). Each test names the row of the table.

const A = 'sess-holder';
const B = 'sess-writer';
const owner = (session: string) => `claude-${session}`;

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
const read = (dir: string, path: string) => readFileSync(join(dir, path), 'utf8');
const bash = (cwd: string, command: string) => execFileSync('bash', ['-c', command], { cwd });
const contextOf = (stdout: string): string => (stdout.trim() === '' ? '' : (JSON.parse(stdout).hookSpecificOutput?.additionalContext ?? ''));

// A Claude hook payload of `session` whose cwd is `cwd` (a work tree, a directory above one).
const payloadIn = (cwd: string, session: string, fields: Record<string, unknown>) => JSON.stringify({ session_id: session, transcript_path: '/dev/null', cwd, ...fields });

function hook(repo: TempRepo, name: string, cwd: string, session: string, fields: Record<string, unknown>) {
  return ic(repo, ['coord', 'hook', name], { input: payloadIn(cwd, session, fields), cwd });
}

const pre = (repo: TempRepo, cwd: string, session: string, callId: string, command: string) =>
  hook(repo, 'claude-pre-shell', cwd, session, { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: callId });

const post = (repo: TempRepo, cwd: string, session: string, callId: string, command: string, response: Record<string, unknown> = {}) =>
  hook(repo, 'claude-post-tool', cwd, session, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: callId, tool_response: { stdout: '', ...response } });

// One whole Bash call: before hook, the command in real bash, after hook.
async function shellCall(repo: TempRepo, cwd: string, session: string, callId: string, command: string, response: Record<string, unknown> = {}) {
  const before = await pre(repo, cwd, session, callId, command);
  expect(before.exitCode).toBe(0);
  expect(before.stdout).not.toContain('"deny"');
  bash(cwd, command);
  const after = await post(repo, cwd, session, callId, command, response);
  expect(after.exitCode).toBe(0);
  return after;
}

// A script the shell reader cannot see through: only the after hook can catch what it writes.
const python = (path: string, text: string) => `python3 -c "import sys; open(sys.argv[1], 'w').write(sys.argv[2])" ${path} '${text}'`;

async function events(repo: TempRepo, type: string): Promise<any[]> {
  return (await coord(repo, ['events', '--limit', '1000'])).json.events.filter((e: any) => e.type === type);
}

function openCommands(repo: TempRepo): number {
  const db = new Database(repo.db, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM custody_commands').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function seed(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-qm', 'seed');
}

// Waits (polling, bounded) until a background job has written what it writes.
async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('the background job never wrote');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(onPostgres)('custody beyond one command in one work tree (issue #34)', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-late-');
    seed(repo.dir, { 'src/a.ts': 'v0\n', 'README.md': 'readme\n' });
  });
  afterEach(() => repo.cleanup());

  describe('item 4: the holder’s own writes are never undone', () => {
    it('row "the holder saves in an editor between commands": the next foreign command’s restore puts back the save, not the older tool edit', async () => {
      await claudeWrite(repo, A, 'src/a.ts', 'A tool edit\n');
      await new Promise((resolve) => setTimeout(resolve, 20)); // the save's mtime after the record's time
      write(repo, 'src/a.ts', 'A saved in the editor\n'); // no hook sees this
      const after = await shellCall(repo, repo.dir, B, 'b-1', python('src/a.ts', 'B clobbers'));
      expect(contextOf(after.stdout)).toContain(`"src/a.ts" is held by ${owner(A)}`);
      expect(read(repo.dir, 'src/a.ts')).toBe('A saved in the editor\n');
    });

    // A third owner holds a file, so the holder's own commands have something to snapshot (and count as open).
    const thirdHolds = async () => expect((await coord(repo, ['reserve', 'README.md'], { env: { IC_OWNER: 'person' } })).exitCode).toBe(0);

    it('row "a person denies the holder’s Bash call at the prompt": the command stops counting at the holder’s turn end', async () => {
      await thirdHolds();
      await claudeWrite(repo, A, 'src/a.ts', 'A work\n');
      expect((await pre(repo, repo.dir, A, 'a-denied', python('src/a.ts', 'A would write'))).stdout).not.toContain('"deny"');
      // No PostToolUse for a-denied: the person refused it. While it counts as running, B's write is "left".
      const left = await shellCall(repo, repo.dir, B, 'b-1', python('src/a.ts', 'B one'));
      expect(contextOf(left.stdout)).toContain('own command was running');
      write(repo, 'src/a.ts', 'A work\n');
      // The holder's turn ends (Stop): its open command is over.
      expect((await hook(repo, 'claude-turn-end', repo.dir, A, { hook_event_name: 'Stop' })).exitCode).toBe(0);
      expect(openCommands(repo)).toBe(0);
      const back = await shellCall(repo, repo.dir, B, 'b-2', python('src/a.ts', 'B two'));
      expect(contextOf(back.stdout)).toContain(`"src/a.ts" is held by ${owner(A)}`);
      expect(read(repo.dir, 'src/a.ts')).toBe('A work\n');
    });

    it('row "a person denies the holder’s Bash call at the prompt", Codex (no PostToolUse): the command stops counting at the holder’s Stop', async () => {
      await thirdHolds();
      const H = 'codex-thread-h';
      expect((await coord(repo, ['reserve', 'src/a.ts'], { env: { IC_OWNER: `codex-${H}` } })).exitCode).toBe(0);
      const codexPre = await hook(repo, 'codex-pre-shell', repo.dir, H, {
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: python('src/a.ts', 'H would write') },
        tool_use_id: 'h-denied',
      });
      expect(codexPre.stdout).not.toContain('"deny"');
      expect(openCommands(repo)).toBe(1);
      // Denied at Codex's approval prompt: no PostToolUse. While it counts as running, B's write is "left".
      const left = await shellCall(repo, repo.dir, B, 'b-1', python('src/a.ts', 'B one'));
      expect(contextOf(left.stdout)).toContain('own command was running');
      write(repo, 'src/a.ts', 'v0\n');
      const stop = await hook(repo, 'codex-turn-end', repo.dir, H, { hook_event_name: 'Stop', turn_id: 't1', stop_hook_active: false });
      expect(stop.exitCode).toBe(0);
      expect(stop.stdout).toBe(''); // the denied command changed nothing: nothing to say
      expect(openCommands(repo)).toBe(0);
      const back = await shellCall(repo, repo.dir, B, 'b-2', python('src/a.ts', 'B two'));
      expect(contextOf(back.stdout)).toContain(`"src/a.ts" is held by codex-${H}`);
      expect(read(repo.dir, 'src/a.ts')).toBe('v0\n');
    });

    it('a new prompt (UserPromptSubmit) ends the session’s commands that never got their after hook, and only that session’s', async () => {
      await thirdHolds();
      await claudeWrite(repo, A, 'src/a.ts', 'A work\n');
      await pre(repo, repo.dir, A, 'a-interrupted', 'sleep 100');
      await pre(repo, repo.dir, B, 'b-running', 'sleep 100');
      expect(openCommands(repo)).toBe(2);
      expect((await hook(repo, 'claude-prompt', repo.dir, A, { hook_event_name: 'UserPromptSubmit', prompt: 'go on' })).exitCode).toBe(0);
      expect(openCommands(repo)).toBe(1);
    });
  });

  describe('item 5: late writes are never silent', () => {
    it('row "the same writer runs another command before its late after hook arrives": the late restore still puts the file back', async () => {
      await claudeWrite(repo, A, 'src/a.ts', 'A work\n');
      // B's first command (a Codex command past its yield, say) writes A's file; its after hook comes late.
      expect((await pre(repo, repo.dir, B, 'b-long', 'python3 long.py')).exitCode).toBe(0);
      bash(repo.dir, python('src/a.ts', 'B long command'));
      // Meanwhile B runs another command: its before hook must not take B's write for A's content.
      await shellCall(repo, repo.dir, B, 'b-short', 'ls');
      const late = await post(repo, repo.dir, B, 'b-long', 'python3 long.py');
      expect(contextOf(late.stdout)).toContain(`"src/a.ts" is held by ${owner(A)}`);
      expect(read(repo.dir, 'src/a.ts')).toBe('A work\n');
    });

    it('row "(sleep; write) &": a background job’s write after the after hook is reported to the holder and the writer, with an event and a way back', async () => {
      await claudeWrite(repo, A, 'src/a.ts', 'A work\n');
      // The job waits for a go-ahead the test gives after the after hook (no timing guess on a loaded machine).
      const command = `(while [ ! -e .go ]; do sleep 0.05; done; ${python('src/a.ts', 'B background')}) > /dev/null 2>&1 &`;
      const after = await shellCall(repo, repo.dir, B, 'b-bg', command);
      expect(contextOf(after.stdout)).toBe(''); // nothing written yet
      writeFileSync(join(repo.dir, '.go'), '');
      await until(() => read(repo.dir, 'src/a.ts') === 'B background');
      // The holder's next hook (any hook: here its next Bash command) notices it and tells its model.
      const holderHook = await pre(repo, repo.dir, A, 'a-next', 'ls');
      const told = contextOf(holderHook.stdout);
      expect(told).toContain(`"src/a.ts", which you (${owner(A)}) hold, was changed after ${owner(B)}'s shell command had ended`);
      const [event] = await events(repo, 'late_write');
      expect(event).toMatchObject({ owner: owner(B), pattern: 'src/a.ts', detail: { holder: owner(A), call_id: 'b-bg' } });
      // The holder's content before it comes back with the one line the message gives; the late content is kept too.
      expect(told).toContain(`\`ic coord undo ${event.id}\``);
      expect(told).not.toContain('cat-file');
      git(repo.dir, 'gc', '--prune=now', '--quiet'); // both contents are pinned
      expect(git(repo.dir, 'cat-file', '-p', event.detail.found)).toBe('B background');
      const undone = await coord(repo, ['undo', String(event.id)], { env: { IC_OWNER: owner(A) } });
      expect(undone.exitCode).toBe(0);
      expect(read(repo.dir, 'src/a.ts')).toBe('A work\n');
      // The writer is told at its own next hook, once.
      expect(contextOf((await pre(repo, repo.dir, B, 'b-next', 'ls')).stdout)).toContain('a job your shell command left running');
      expect(contextOf((await pre(repo, repo.dir, B, 'b-next2', 'ls')).stdout)).toBe('');
      expect(await events(repo, 'late_write')).toHaveLength(1);
    });

    it('row "Claude moves a Bash command past its timeout to the background": a write after its after hook is noticed at the next hook of another session', async () => {
      await claudeWrite(repo, A, 'src/a.ts', 'A work\n');
      // The after hook fires when Claude moves the command to the background (tool_response.backgroundTaskId).
      const command = 'python3 slow_codegen.py';
      await pre(repo, repo.dir, B, 'b-timeout', command);
      expect((await post(repo, repo.dir, B, 'b-timeout', command, { backgroundTaskId: 'bash_1' })).exitCode).toBe(0);
      bash(repo.dir, python('src/a.ts', 'generated late')); // what the still-running command writes later
      // A third session's hook notices it; the holder is told at its next hook.
      await shellCall(repo, repo.dir, 'sess-third', 't-1', 'ls');
      expect(await events(repo, 'late_write')).toHaveLength(1);
      expect(contextOf((await hook(repo, 'claude-prompt', repo.dir, A, { hook_event_name: 'UserPromptSubmit', prompt: 'next' })).stdout)).toContain('"src/a.ts", which you');
    });

    it('the holder’s own recorded write during the watch is not a late write', async () => {
      await claudeWrite(repo, A, 'src/a.ts', 'A work\n');
      await shellCall(repo, repo.dir, B, 'b-bg', 'sleep 0 &');
      await claudeWrite(repo, A, 'src/a.ts', 'A writes again\n');
      await shellCall(repo, repo.dir, B, 'b-next', 'ls');
      expect(await events(repo, 'late_write')).toHaveLength(0);
    });
  });

  describe('item 3: every work tree a command reaches', () => {
    let other: TempRepo;
    beforeEach(() => {
      other = makeTempRepo('ic-late-other-');
      seed(other.dir, { 'lib/held.ts': 'other v0\n' });
    });
    afterEach(() => other.cleanup());

    it('row "a command that cds into another repository": the held file there is put back', async () => {
      await claudeWrite(other, A, 'lib/held.ts', 'A work in the other repository\n');
      const command = `cd ${other.dir} && ${python('lib/held.ts', 'B clobbers')}`;
      const after = await shellCall(repo, repo.dir, B, 'b-cd', command);
      expect(read(other.dir, 'lib/held.ts')).toBe('A work in the other repository\n');
      expect(contextOf(after.stdout)).toContain('held.ts" is held by');
      expect(await events(other, 'restored')).toHaveLength(1);
    });

    it('row "a linked worktree": a command in the main work tree that writes a file held in a linked one is put back there', async () => {
      const linked = join(mkdtempSync(join(tmpdir(), 'ic-late-wt-')), 'wt');
      try {
        git(repo.dir, 'worktree', 'add', '-q', '-b', 'feature', linked);
        const wt: TempRepo = { dir: realpathSync(linked), db: repo.db, scope: realpathSync(linked), cleanup: () => {} };
        await claudeWrite(wt, A, 'src/a.ts', 'A work in the linked worktree\n');
        writeFileSync(join(repo.dir, 'gen.py'), `open(${JSON.stringify(join(wt.dir, 'src/a.ts'))}, 'w').write('B codegen')\n`);
        await shellCall(repo, repo.dir, B, 'b-gen', 'python3 gen.py');
        expect(read(wt.dir, 'src/a.ts')).toBe('A work in the linked worktree\n');
        expect(read(repo.dir, 'src/a.ts')).toBe('v0\n');
      } finally {
        rmSync(join(linked, '..'), { recursive: true, force: true });
      }
    });
  });

  it('row "a session whose cwd is a parent directory": the held file in the repository below is put back', async () => {
    const parent = realpathSync(mkdtempSync(join(tmpdir(), 'ic-late-parent-')));
    try {
      const app = join(parent, 'app');
      execFileSync('git', ['init', '-q', '-b', 'main', app]);
      git(app, 'config', 'user.email', 't@example.com');
      git(app, 'config', 'user.name', 'T');
      seed(app, { 'held.txt': 'v0\n' });
      const appRepo: TempRepo = { dir: app, db: join(app, '.git', 'ic', 'ic.db'), scope: app, cleanup: () => {} };
      await claudeWrite(appRepo, A, 'held.txt', 'A work\n');
      writeFileSync(join(parent, 'tool.py'), "open('app/held.txt', 'w').write('B from the parent')\n");
      const after = await shellCall(appRepo, parent, B, 'b-parent', 'python3 tool.py');
      expect(read(app, 'held.txt')).toBe('A work\n');
      expect(contextOf(after.stdout)).toContain('app/held.txt');
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
