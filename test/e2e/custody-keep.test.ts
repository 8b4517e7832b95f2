import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { claudeWrite, payload, write } from '../support/custody';
import { onPostgres } from '../support/engine';

// Issue #34, item 1: everything custody displaces or records stays recoverable. Through the real bin, real
// git (gc included) and real bash: the holder's edit, `git gc --prune=now` inside another session's
// command, the restore byte for byte, detail.saved, `coord undo` and its own undo, and sweep's retention.

const A = 'sess-a';
const B = 'sess-b';
const HOLDER = `claude-${A}`;
const WRITER = `claude-${B}`;

function git(repo: TempRepo, ...args: string[]): string {
  return execFileSync('git', ['-C', repo.dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const read = (repo: TempRepo, path: string) => readFileSync(join(repo.dir, path), 'utf8');

function seed(repo: TempRepo, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) write(repo, path, text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'seed');
}

// One whole Bash call of session B as Claude Code makes it: the before hook, the command in real bash
// (unless denied), the after hook. Returns the after hook's additionalContext.
async function bashCall(repo: TempRepo, callId: string, command: string, env: Record<string, string> = {}): Promise<string> {
  const fields = { tool_name: 'Bash', tool_input: { command }, tool_use_id: callId };
  const pre = await ic(repo, ['coord', 'hook', 'claude-pre-shell'], { input: payload(repo, B, { hook_event_name: 'PreToolUse', ...fields }), env: { CLAUDE_PROJECT_DIR: repo.dir, ...env } });
  expect(pre).toMatchObject({ exitCode: 0, stdout: '' });
  execFileSync('bash', ['-c', command], { cwd: repo.dir, stdio: 'ignore' });
  const post = await ic(repo, ['coord', 'hook', 'claude-post-tool'], {
    input: payload(repo, B, { hook_event_name: 'PostToolUse', ...fields, tool_response: { stdout: '' } }),
    env: { CLAUDE_PROJECT_DIR: repo.dir, ...env },
  });
  expect(post.exitCode).toBe(0);
  expect(post.stderr).not.toMatch(/Command failed|fatal:/);
  return post.stdout === '' ? '' : (JSON.parse(post.stdout).hookSpecificOutput?.additionalContext ?? '');
}

async function events(repo: TempRepo, type: string): Promise<any[]> {
  return (await coord(repo, ['events', '--limit', '1000'])).json.events.filter((e: any) => e.type === type);
}

// A write the before hook cannot read in advance (a script), so only the after hook's restore sees it.
const nodeWrite = (path: string, text: string) => `node -e 'const [p, t] = process.argv.slice(1); require("fs").writeFileSync(p, t)' ${path} '${text}'`;

// Session A writes held.txt as Claude's Write does (pre-edit hook, the write, post-tool hook), at `env`'s clock.
async function holderWrite(repo: TempRepo, text: string, callId: string, env: Record<string, string> = {}): Promise<void> {
  const toolInput = { file_path: join(repo.dir, 'held.txt'), content: text };
  const hookPayload = (name: string) => payload(repo, A, { hook_event_name: name, tool_name: 'Write', tool_input: toolInput, tool_use_id: callId, tool_response: {} });
  expect((await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: hookPayload('PreToolUse'), env })).stdout).toBe('');
  write(repo, 'held.txt', text);
  expect((await ic(repo, ['coord', 'hook', 'claude-post-tool'], { input: hookPayload('PostToolUse'), env })).exitCode).toBe(0);
}

// Deletes every pin and prunes: what is left is what git itself keeps (commits, the index).
function dropPinsAndPrune(repo: TempRepo): void {
  const refs = git(repo, 'for-each-ref', '--format=%(refname)', 'refs/ic/custody/').split('\n').filter(Boolean);
  for (const ref of refs) git(repo, 'update-ref', '-d', ref);
  git(repo, 'gc', '--prune=now', '--quiet');
}

describe('custody keeps what it records and displaces (issue #34, item 1)', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-keep-e2e-');
  });
  afterEach(() => repo.cleanup());

  it('`git gc --prune=now && <write>`: the holder’s edit comes back byte for byte, and the write it replaced is kept (detail.saved)', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    const work = 'A’s afternoon of work\n\u00e9\u0000 bytes too\n';
    await claudeWrite(repo, A, 'held.txt', work);
    const command = `git gc --prune=now --quiet && ${nodeWrite('held.txt', 'B was here\n')}`;
    const context = await bashCall(repo, 'gc-1', command);
    expect(readFileSync(join(repo.dir, 'held.txt'))).toEqual(Buffer.from(work));
    expect(context).toContain(`"held.txt" is held by ${HOLDER}`);
    const [restored] = await events(repo, 'restored');
    expect(restored).toMatchObject({ owner: WRITER, pattern: 'held.txt', detail: { holder: HOLDER, saved: expect.stringMatching(/^[0-9a-f]{40}$/), saved_mode: '100644' } });
    git(repo, 'gc', '--prune=now', '--quiet');
    expect(git(repo, 'cat-file', '-p', restored.detail.saved)).toBe('B was here\n');
    expect(context).toContain(`coord undo ${restored.id}`);
  });

  it('a holder’s content git no longer has: left as it is with a not_restored event and a clear message (on a server: put back from the server’s copy)', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    await claudeWrite(repo, A, 'held.txt', 'A work that only custody had\n');
    dropPinsAndPrune(repo); // as a repository with ic before 0.4, or a hand-deleted ref
    const context = await bashCall(repo, 'lost-1', nodeWrite('held.txt', 'B wrote\n'));
    if (onPostgres) {
      // A server project keeps custody's contents on the server too (docs/postgres.md): every clone, and this
      // one after its own copy was pruned, gets the holder's content back from there.
      expect(read(repo, 'held.txt')).toBe('A work that only custody had\n');
      expect(await events(repo, 'restored')).toEqual([expect.objectContaining({ owner: WRITER, pattern: 'held.txt' })]);
      return;
    }
    expect(read(repo, 'held.txt')).toBe('B wrote\n'); // never a destroyed file
    expect(context).toContain("is no longer in git's object store, so ic left the file as it is");
    const [missed] = await events(repo, 'not_restored');
    expect(missed).toMatchObject({ owner: WRITER, pattern: 'held.txt', detail: { holder: HOLDER, why: 'content_missing' } });
    expect(await events(repo, 'restored')).toEqual([]);
  });

  it('a file moved aside is kept in git too: detail.saved has its bytes', async () => {
    seed(repo, { 'gen/keep.ts': 'keep\n' });
    expect((await coord(repo, ['reserve', 'gen/**'], { env: { IC_OWNER: 'generator', IC_NOW: new Date(Date.now() - 10_000).toISOString(), IC_TEST_CLOCK: '1' } })).exitCode).toBe(0);
    await bashCall(repo, 'gen-1', nodeWrite('gen/new.ts', 'created by B\n'));
    expect(existsSync(join(repo.dir, 'gen/new.ts'))).toBe(false);
    const [displaced] = await events(repo, 'displaced');
    expect(readFileSync(displaced.detail.moved_to, 'utf8')).toBe('created by B\n');
    git(repo, 'gc', '--prune=now', '--quiet');
    expect(git(repo, 'cat-file', '-p', displaced.detail.saved)).toBe('created by B\n');
  });

  it('coord sweep deletes the moved-aside copies (<git common dir>/ic/displaced/<time>/) after the same 14 days as the pins', async () => {
    const at = (days: number) => ({ IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() + days * 86_400_000).toISOString() });
    seed(repo, { 'gen/keep.ts': 'keep\n' });
    expect((await coord(repo, ['reserve', 'gen/**'], { env: { IC_OWNER: 'generator', ...at(-15.001) } })).exitCode).toBe(0);
    await bashCall(repo, 'gen-1', nodeWrite('gen/new.ts', 'created by B\n'), at(-15));
    const [displaced] = await events(repo, 'displaced');
    const timeDir = dirname(dirname(displaced.detail.moved_to));
    expect(dirname(timeDir)).toBe(join(repo.dir, '.git', 'ic', 'displaced'));
    expect((await coord(repo, ['sweep'], { env: at(-2) })).json).toMatchObject({ displaced_dirs: 0 }); // 13 days on: kept
    expect(readFileSync(displaced.detail.moved_to, 'utf8')).toBe('created by B\n');
    expect((await coord(repo, ['sweep', '--dry-run'])).json).toMatchObject({ displaced_dirs: 1, dry_run: true });
    expect(existsSync(timeDir)).toBe(true);
    expect((await coord(repo, ['sweep'])).json).toMatchObject({ displaced_dirs: 1, dry_run: false });
    expect(existsSync(timeDir)).toBe(false);
  });

  it('coord undo puts the overwritten content back once the path is free, keeps what it replaces, and is itself undoable', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    await claudeWrite(repo, A, 'held.txt', 'A version\n');
    await bashCall(repo, 'u-1', nodeWrite('held.txt', 'B version\n'));
    expect(read(repo, 'held.txt')).toBe('A version\n');
    const [restored] = await events(repo, 'restored');

    // Held by A: refused like an edit, naming the holder; nothing changes.
    const refused = await coord(repo, ['undo', String(restored.id)], { env: { IC_OWNER: WRITER } });
    expect(refused.exitCode).toBe(1);
    expect(refused.json.error).toMatchObject({ code: 'CONFLICT', path: 'held.txt' });
    expect(refused.json.error.message).toContain(HOLDER);
    expect(read(repo, 'held.txt')).toBe('A version\n');

    expect((await coord(repo, ['release', '--all'], { env: { IC_OWNER: HOLDER } })).exitCode).toBe(0);
    const undone = await coord(repo, ['undo', String(restored.id)], { env: { IC_OWNER: WRITER } });
    expect(undone.exitCode).toBe(0);
    expect(read(repo, 'held.txt')).toBe('B version\n');
    expect(undone.json).toMatchObject({ ok: true, undid: restored.id, path: 'held.txt', blob: restored.detail.saved, mode: '100644', saved: restored.detail.blob });
    const [event] = await events(repo, 'undone');
    expect(event).toMatchObject({ id: undone.json.event, owner: WRITER, pattern: 'held.txt', detail: { undid: restored.id, saved: restored.detail.blob } });

    // The undo of the undo: A's version again.
    const again = await coord(repo, ['undo', String(undone.json.event)], { env: { IC_OWNER: HOLDER } });
    expect(again.exitCode).toBe(0);
    expect(read(repo, 'held.txt')).toBe('A version\n');
    expect(again.json.saved).toBe(restored.detail.saved);
  });

  it('coord undo of what the undoer holds makes it its latest content: the next foreign write is put back to it', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    await claudeWrite(repo, A, 'held.txt', 'A first\n');
    await bashCall(repo, 'h-1', nodeWrite('held.txt', 'B idea A likes\n'));
    const [restored] = await events(repo, 'restored');
    expect((await coord(repo, ['undo', String(restored.id)], { env: { IC_OWNER: HOLDER } })).exitCode).toBe(0);
    expect(read(repo, 'held.txt')).toBe('B idea A likes\n');
    await bashCall(repo, 'h-2', nodeWrite('held.txt', 'B again\n'));
    expect(read(repo, 'held.txt')).toBe('B idea A likes\n');
  });

  it('coord undo: clear errors with documented exit codes, and nothing changes', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    await claudeWrite(repo, A, 'held.txt', 'A version\n');
    await bashCall(repo, 'e-1', nodeWrite('held.txt', 'B version\n'));
    const [restored] = await events(repo, 'restored');
    const [reserved] = await events(repo, 'reserved');
    const as = { env: { IC_OWNER: HOLDER } };
    const unknown = await coord(repo, ['undo', '999999'], as);
    expect([unknown.exitCode, unknown.json.error.code]).toEqual([1, 'NOT_FOUND']);
    const nothing = await coord(repo, ['undo', String(reserved.id)], as);
    expect([nothing.exitCode, nothing.json.error.code]).toEqual([65, 'INVALID_INPUT']);
    expect(nothing.json.error.message).toContain('kept no content');
    const notAnId = await coord(repo, ['undo', 'abc'], as);
    expect([notAnId.exitCode, notAnId.json.error.code]).toEqual([65, 'INVALID_INPUT']);
    dropPinsAndPrune(repo);
    const gone = await coord(repo, ['undo', String(restored.id)], as);
    expect([gone.exitCode, gone.json.error.code, gone.json.error.blob]).toEqual([1, 'NOT_FOUND', restored.detail.saved]);
    expect(read(repo, 'held.txt')).toBe('A version\n');
    expect(await events(repo, 'undone')).toEqual([]);
  });

  it('coord sweep drops kept contents after 14 days unless a live record needs them; gc may then prune them, and undo says so', async () => {
    // The clock runs from 15 days ago (IC_NOW may not run ahead of the real time): the pins are dated then.
    const at = (days: number) => ({ IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() + days * 86_400_000).toISOString() });
    const past = at(-15);
    seed(repo, { 'held.txt': 'committed\n' });
    await holderWrite(repo, 'A version\n', 'w-1', past);
    await bashCall(repo, 's-1', nodeWrite('held.txt', 'B version\n'), past);
    const [restored] = await events(repo, 'restored');
    const pinsThen = git(repo, 'for-each-ref', '--format=%(objectname)', 'refs/ic/custody/').split('\n').filter(Boolean);
    expect(pinsThen).toEqual(expect.arrayContaining([restored.detail.blob, restored.detail.saved]));

    const early = await coord(repo, ['sweep'], { env: at(-1) }); // 14 days on: all kept
    expect(early.json).toMatchObject({ dropped_pins: 0, kept_pins: pinsThen.length });

    // Today A holds and writes the same content again: a live record names it, so its old pin stays too.
    await holderWrite(repo, 'A version\n', 'w-2');
    const dry = await coord(repo, ['sweep', '--dry-run']);
    expect(dry.json).toMatchObject({ dropped_pins: pinsThen.length - 1, dry_run: true });
    const swept = await coord(repo, ['sweep']);
    expect(swept.json).toMatchObject({ dropped_pins: pinsThen.length - 1, kept_pins: 2, dry_run: false });
    const left = git(repo, 'for-each-ref', '--format=%(objectname)', 'refs/ic/custody/').split('\n').filter(Boolean);
    expect(left).toEqual([restored.detail.blob, restored.detail.blob]);
    git(repo, 'gc', '--prune=now', '--quiet');
    expect(git(repo, 'cat-file', '-p', restored.detail.blob)).toBe('A version\n');
    expect((await coord(repo, ['release', '--all'], { env: { IC_OWNER: HOLDER } })).exitCode).toBe(0);
    const gone = await coord(repo, ['undo', String(restored.id)], { env: { IC_OWNER: HOLDER } });
    expect([gone.exitCode, gone.json.error.code]).toEqual([1, 'NOT_FOUND']);
    expect(gone.json.error.message).toContain('14 days');
  });
});
