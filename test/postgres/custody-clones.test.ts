// Custody contents every clone can read (issue #38, item 4): a holder's content recorded in clone A is put
// back by a restore in clone B, which never had it, through the server (custody_blobs); what the server
// hands over is checked against its id. Two real clones, one throwaway server, the real bin and real bash.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { claudeWrite, payload, write } from '../support/custody';
import { freshDatabaseUrl, withConnection } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function twoClones(url: string): [TempRepo, TempRepo] {
  const a = makeTempRepo('ic-pg-custody-a-');
  cleanups.push(a.cleanup);
  write(a, 'held.txt', 'committed\n');
  git(a.dir, 'add', '-A');
  git(a.dir, 'commit', '-qm', `seed of ${a.dir}`);
  const parent = realpathSync(mkdtempSync(join(tmpdir(), 'ic-pg-custody-b-')));
  cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
  const b: TempRepo = { dir: join(parent, 'clone'), db: '', cleanup: () => undefined };
  execFileSync('git', ['clone', '-q', a.dir, b.dir]);
  for (const repo of [a, b]) git(repo.dir, 'config', 'ic.db', url); // as `ic init --db URL` records it
  return [a, b];
}

// Session `session`'s Bash call in `repo` as Claude Code makes it: before hook, the command, after hook.
async function bashCall(repo: TempRepo, session: string, command: string): Promise<string> {
  const fields = { tool_name: 'Bash', tool_input: { command }, tool_use_id: `${session}-call` };
  const env = { CLAUDE_PROJECT_DIR: repo.dir };
  expect((await ic(repo, ['coord', 'hook', 'claude-pre-shell'], { input: payload(repo, session, { hook_event_name: 'PreToolUse', ...fields }), env })).exitCode).toBe(0);
  execFileSync('bash', ['-c', command], { cwd: repo.dir, stdio: 'ignore' });
  const post = await ic(repo, ['coord', 'hook', 'claude-post-tool'], { input: payload(repo, session, { hook_event_name: 'PostToolUse', ...fields, tool_response: { stdout: '' } }), env });
  expect(post.exitCode, post.stderr).toBe(0);
  return post.stdout === '' ? '' : (JSON.parse(post.stdout).hookSpecificOutput?.additionalContext ?? '');
}

const nodeWrite = (path: string, text: string) => `node -e 'const [p, t] = process.argv.slice(1); require("fs").writeFileSync(p, t)' ${path} '${text}'`;

describe('custody across clones of a server project', () => {
  it("a restore in clone B puts back the holder's content recorded in clone A, which B's object store never had", async () => {
    const url = freshDatabaseUrl();
    const [a, b] = twoClones(url);
    const work = 'A’s work, recorded in clone A only\n';
    await claudeWrite(a, 'sess-a', 'held.txt', work);
    const blob = git(a.dir, 'hash-object', 'held.txt');
    expect(() => git(b.dir, 'cat-file', '-e', blob)).toThrow(); // clone B does not have it
    const stored = await withConnection(url, (db) => db.all<{ blob: string; size: number }>('SELECT blob, size FROM ic.custody_blobs'));
    expect(stored).toEqual([{ blob, size: Buffer.byteLength(work) }]);

    const context = await bashCall(b, 'sess-b', nodeWrite('held.txt', 'B was here\n'));
    expect(readFileSync(join(b.dir, 'held.txt'), 'utf8')).toBe(work);
    expect(context).toContain('held by claude-sess-a');
    expect(git(b.dir, 'cat-file', '-p', blob)).toBe(work.trimEnd()); // now in B's object store too
    const restored = (await coord(b, ['events', '--limit', '100'])).json.events.filter((event: { type: string }) => event.type === 'restored');
    expect(restored).toHaveLength(1);
  });

  it('content the server hands over under a wrong id is not used: the file is left as it is, said as content_missing', async () => {
    const url = freshDatabaseUrl();
    const [a, b] = twoClones(url);
    await claudeWrite(a, 'sess-a', 'held.txt', 'the real work\n');
    await withConnection(url, (db) => db.run('UPDATE ic.custody_blobs SET content = ?', [Buffer.from('forged\n').toString('base64')]));
    await bashCall(b, 'sess-b', nodeWrite('held.txt', 'B wrote\n'));
    expect(readFileSync(join(b.dir, 'held.txt'), 'utf8')).toBe('B wrote\n');
    const missed = (await coord(b, ['events', '--limit', '100'])).json.events.filter((event: { type: string }) => event.type === 'not_restored');
    expect(missed[0]).toMatchObject({ detail: { why: 'content_missing' } });
  });

  it('coord sweep removes shared contents past the retention that no record names, and keeps the rest', async () => {
    const url = freshDatabaseUrl();
    const [a] = twoClones(url);
    await claudeWrite(a, 'sess-a', 'held.txt', 'still held\n');
    const old = Date.now() - 15 * 86_400_000;
    await withConnection(url, async (db) => {
      await db.run('UPDATE ic.custody_blobs SET stored_at = ?', [old]); // the named one, old too
      await db.run('INSERT INTO ic.custody_blobs (blob, size, content, stored_at) VALUES (?, 1, ?, ?)', ['0'.repeat(40), 'eA==', old]);
    });
    expect((await coord(a, ['sweep'])).exitCode).toBe(0);
    const left = await withConnection(url, (db) => db.all<{ blob: string }>('SELECT blob FROM ic.custody_blobs'));
    expect(left).toEqual([{ blob: git(a.dir, 'hash-object', 'held.txt') }]);
  });
});
