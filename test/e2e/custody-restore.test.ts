import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv, coord, ic, IC_BIN, makeTempRepo, REPO_ROOT, type TempRepo } from '../support/cli';
import { claudeWrite, payload, write } from '../support/custody';

// Custody after a shell command (#19, step 3), through the real bin, real git and real bash. The before
// hook's snapshot (the custody-pre branch's pre-shell hook calls snapshotBeforeShell) is taken by a node
// process on dist/api.cjs, as that hook would.

const A = 'sess-a';
const B = 'sess-b';
const owner = (session: string) => `claude-${session}`;

function git(repo: TempRepo, ...args: string[]): string {
  return execFileSync('git', ['-C', repo.dir, ...args], { encoding: 'utf8' });
}

const read = (repo: TempRepo, path: string) => readFileSync(join(repo.dir, path), 'utf8');

function seed(repo: TempRepo, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) write(repo, path, text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', 'seed');
}

function snapshotScript(repo: TempRepo, session: string, callId: string, command: string): string[] {
  const request = JSON.stringify({ owner: owner(session), cwd: repo.dir, projectDir: repo.dir, command, callId });
  return ['-e', `require(${JSON.stringify(join(REPO_ROOT, 'dist', 'api.cjs'))}).snapshotBeforeShell(JSON.parse(process.argv[1]), process.env)`, request];
}

function snapshot(repo: TempRepo, session: string, callId: string, command: string): void {
  execFileSync(process.execPath, snapshotScript(repo, session, callId, command), { cwd: repo.dir, env: cleanEnv() as NodeJS.ProcessEnv });
}

function bash(repo: TempRepo, command: string): void {
  execFileSync('bash', ['-c', command], { cwd: repo.dir });
}

function postShell(repo: TempRepo, session: string, callId: string, command: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  return ic(repo, ['coord', 'hook', 'claude-post-tool'], {
    input: payload(repo, session, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: callId, tool_response: { stdout: '' }, ...extra }),
    env,
  });
}

// The hook's clock stopped at the moment the command ended: a client calls PostToolUse then, and the
// command's duration is counted back from it, however long the hook's own start takes on a loaded machine.
const endedNow = (): Record<string, string> => ({ IC_TEST_CLOCK: '1', IC_NOW: String(Date.now()) });

// One whole Bash call of `session`: before hook (snapshot), the command in real bash, the after hook.
async function shellCall(repo: TempRepo, session: string, callId: string, command: string) {
  snapshot(repo, session, callId, command);
  bash(repo, command);
  return postShell(repo, session, callId, command);
}

const contextOf = (stdout: string): string => (stdout === '' ? '' : (JSON.parse(stdout).hookSpecificOutput?.additionalContext ?? ''));

async function events(repo: TempRepo, type: string): Promise<any[]> {
  return (await coord(repo, ['events', '--limit', '1000'])).json.events.filter((e: any) => e.type === type);
}

describe('custody after a shell command (claude-post-tool)', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = makeTempRepo('ic-custody-');
  });
  afterEach(() => repo.cleanup());

  it('a whole-tree rewrite by B keeps the file A holds as A wrote it; every other file is B rewritten', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`src/${i % 3 === 0 ? 'deep/' : ''}m${i}.ts`] = `export const m${i} = ${i};\n`;
    seed(repo, { ...files, 'src/a.ts': 'export const a = 1;\n' });
    await claudeWrite(repo, A, 'src/a.ts', "export const a = 'A work in progress';\n");
    const formatter = `node -e 'const fs=require("fs");const walk=(d)=>fs.readdirSync(d,{withFileTypes:true}).forEach(e=>e.isDirectory()?walk(d+"/"+e.name):fs.writeFileSync(d+"/"+e.name,"// formatted\\n"+fs.readFileSync(d+"/"+e.name,"utf8")));walk("src")'`;
    const post = await shellCall(repo, B, 'fmt-1', formatter);
    expect(post.exitCode).toBe(0);
    expect(read(repo, 'src/a.ts')).toBe("export const a = 'A work in progress';\n");
    for (const [path, text] of Object.entries(files)) expect(read(repo, path)).toBe(`// formatted\n${text}`);
    const context = contextOf(post.stdout);
    expect(context).toContain('"src/a.ts"');
    expect(context).toContain(owner(A));
    const restored = await events(repo, 'restored');
    expect(restored).toHaveLength(1);
    expect(restored[0]).toMatchObject({ owner: owner(B), pattern: 'src/a.ts', detail: { holder: owner(A), command: formatter, call_id: 'fmt-1' } });
  });

  it.each([
    ['python', `python3 -c "open('held.txt','w').write('x')"`],
    ['node', `node -e "require('fs').writeFileSync('held.txt','x')"`],
    ['rm', 'rm held.txt'],
  ])('a %s one-liner on a held file is put back, with or without a snapshot', async (_name, command) => {
    seed(repo, { 'held.txt': 'committed\n' });
    await claudeWrite(repo, A, 'held.txt', 'A uncommitted\n');
    expect(contextOf((await shellCall(repo, B, 'one-1', command)).stdout)).toContain('"held.txt" is held by claude-sess-a');
    expect(read(repo, 'held.txt')).toBe('A uncommitted\n');
    // No snapshot (no before hook ran): the holder's record is the authority.
    bash(repo, command);
    expect(contextOf((await postShell(repo, B, 'one-2', command, { duration_ms: 200 }, endedNow())).stdout)).toContain('held.txt');
    expect(read(repo, 'held.txt')).toBe('A uncommitted\n');
    expect(await events(repo, 'restored')).toHaveLength(2);
  });

  it('before hook failed open: a held file with no snapshot and no holder record is reported (unverified), never reset to the index', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    // Reserved well before the command (a reservation during it could be the holder's own edit in flight).
    expect((await coord(repo, ['reserve', 'held.txt'], { env: { IC_OWNER: 'person', IC_NOW: new Date(Date.now() - 10_000).toISOString() } })).exitCode).toBe(0);
    // The person's uncommitted editor work, saved during the command's time: no hook saw it, and no snapshot
    // (the before hook failed open) says what the file held before the command.
    bash(repo, `python3 -c "open('held.txt','w').write('person editor work')"`);
    const post = await postShell(repo, B, 'idx-1', 'python3 …', { duration_ms: 100 }, endedNow());
    expect(contextOf(post.stdout)).toContain('"held.txt" (held by person) changed, but ic has no snapshot from before your command');
    expect(read(repo, 'held.txt')).toBe('person editor work');
    expect(await events(repo, 'restored')).toHaveLength(0);
    expect(await events(repo, 'unverified')).toMatchObject([{ owner: owner(B), pattern: 'held.txt', detail: { holder: 'person', call_id: 'idx-1' } }]);
    // An untouched held file (changed before the command's time) is not even reported.
    const later = { IC_TEST_CLOCK: '1', IC_NOW: new Date(Date.now() + 10_000).toISOString() };
    const quiet = await ic(repo, ['coord', 'hook', 'claude-post-tool'], {
      env: later,
      input: payload(repo, B, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'idx-2', tool_response: { stdout: '' }, duration_ms: 0 }),
    });
    expect(quiet.stdout).toBe('');
    expect(read(repo, 'held.txt')).toBe('person editor work');
  });

  it('a held file the command did not touch is left as it is, even when it differs from every record', async () => {
    seed(repo, { 'held.txt': 'committed\n' });
    expect((await coord(repo, ['reserve', 'held.txt'], { env: { IC_OWNER: 'person' } })).exitCode).toBe(0);
    write(repo, 'held.txt', 'the person edits in an editor\n'); // no hook records this
    const post = await shellCall(repo, B, 'ls-1', 'ls > /dev/null');
    expect(post.stdout).toBe('');
    expect(read(repo, 'held.txt')).toBe('the person edits in an editor\n');
  });

  it('a file the command creates under another owner’s glob is moved aside, never lost, and the message says where', async () => {
    seed(repo, { 'gen/keep.ts': 'keep\n', 'README.md': 'r\n' });
    expect((await coord(repo, ['reserve', 'gen/**'], { env: { IC_OWNER: 'generator' } })).exitCode).toBe(0);
    write(repo, 'gen/untracked-before.ts', 'was here before\n');
    const post = await shellCall(repo, B, 'gen-1', 'echo new > gen/new.ts && echo free > free.txt');
    expect(existsSync(join(repo.dir, 'gen/new.ts'))).toBe(false);
    const displaced = await events(repo, 'displaced');
    expect(displaced).toHaveLength(1);
    const movedTo = displaced[0].detail.moved_to as string;
    expect(movedTo.startsWith(join(repo.dir, '.git', 'ic', 'displaced'))).toBe(true);
    expect(readFileSync(movedTo, 'utf8')).toBe('new\n');
    expect(contextOf(post.stdout)).toContain(JSON.stringify(movedTo));
    expect(read(repo, 'free.txt')).toBe('free\n'); // nobody holds it: never touched
    expect(read(repo, 'gen/untracked-before.ts')).toBe('was here before\n');
  });

  it('held files that did not exist are moved aside when a command creates them; a held file it deletes comes back', async () => {
    seed(repo, { 'src/held.ts': 'held\n' });
    expect((await coord(repo, ['reserve', 'docs/plan.md', 'lib/none/x.ts', 'src/held.ts'], { env: { IC_OWNER: 'planner' } })).exitCode).toBe(0);
    await shellCall(repo, B, 'mk-1', 'mkdir -p docs lib/none && echo a > docs/plan.md && echo b > lib/none/x.ts && rm src/held.ts && echo free > free.txt');
    expect(existsSync(join(repo.dir, 'docs/plan.md'))).toBe(false);
    expect(existsSync(join(repo.dir, 'lib/none/x.ts'))).toBe(false);
    expect(read(repo, 'src/held.ts')).toBe('held\n');
    expect((await events(repo, 'displaced')).map((e) => e.pattern).sort()).toEqual(['docs/plan.md', 'lib/none/x.ts']);
    expect(read(repo, 'free.txt')).toBe('free\n');
  });

  it('never undoes the holder: its own shell writes and its Edit during another agent’s command', async () => {
    seed(repo, { 'src/a.ts': 'v0\n', 'src/b.ts': 'b0\n' });
    await claudeWrite(repo, A, 'src/a.ts', 'v1\n');
    // A's own shell command rewrites its own file: recorded as A's latest, not undone by anyone.
    expect((await shellCall(repo, A, 'a-sh', "sed -i 's/v1/v2 by sed/' src/a.ts")).stdout).toBe('');
    expect(read(repo, 'src/a.ts')).toBe('v2 by sed\n');
    expect((await shellCall(repo, B, 'b-ls', 'cat src/a.ts > /dev/null')).stdout).toBe('');
    expect(read(repo, 'src/a.ts')).toBe('v2 by sed\n');
    // B's long command: snapshot, then A edits during it, then B's command overwrites, then B's after hook.
    snapshot(repo, B, 'b-long', 'long');
    await claudeWrite(repo, A, 'src/a.ts', 'v3 edited during B\n');
    bash(repo, 'echo vandal > src/a.ts; echo b-own > src/b.ts');
    const post = await postShell(repo, B, 'b-long', 'long');
    expect(read(repo, 'src/a.ts')).toBe('v3 edited during B\n'); // A's latest, not the snapshot's v2
    expect(read(repo, 'src/b.ts')).toBe('b-own\n');
    expect(contextOf(post.stdout)).toContain('src/a.ts');
    // And A's edit during B's command that B does not touch afterwards: kept, nothing to report.
    snapshot(repo, B, 'b-long-2', 'long');
    await claudeWrite(repo, A, 'src/a.ts', 'v4 during B\n');
    expect((await postShell(repo, B, 'b-long-2', 'long')).stdout).toBe('');
    expect(read(repo, 'src/a.ts')).toBe('v4 during B\n');
    // A's own shell write during B's command: A's after hook records it before B's runs.
    snapshot(repo, B, 'b-long-3', 'long');
    expect((await shellCall(repo, A, 'a-sh-2', 'echo v5 by A shell > src/a.ts')).stdout).toBe('');
    expect((await postShell(repo, B, 'b-long-3', 'long')).stdout).toBe('');
    expect(read(repo, 'src/a.ts')).toBe('v5 by A shell\n');
  });

  it('never undoes the holder: an edit whose hook ran before the command and whose write is not yet recorded is left as it is', async () => {
    seed(repo, { 'src/a.ts': 'v0\n' });
    await claudeWrite(repo, A, 'src/a.ts', 'v1\n');
    const toolInput = { file_path: join(repo.dir, 'src/a.ts'), content: 'v2 by A\n' };
    const edit = (hook: string, extra: Record<string, unknown>) =>
      ic(repo, ['coord', 'hook', hook], { input: payload(repo, A, { tool_name: 'Write', tool_input: toolInput, tool_use_id: 'w-2', ...extra }) });
    // A's edit hook runs before B's command starts; A's write lands during it; its record comes after B's after hook.
    expect((await edit('claude-pre-edit', { hook_event_name: 'PreToolUse' })).stdout).toBe('');
    snapshot(repo, B, 'b-1', 'append');
    write(repo, 'src/a.ts', 'v2 by A\n');
    bash(repo, 'echo "B was here" >> src/a.ts');
    const post = await postShell(repo, B, 'b-1', 'append');
    expect(read(repo, 'src/a.ts')).toBe('v2 by A\nB was here\n'); // A's write is there; B's append stays (the trade-off)
    expect(contextOf(post.stdout)).toContain(`"src/a.ts" (held by ${owner(A)}) changed while ${owner(A)} was editing it`);
    expect(await events(repo, 'restored')).toHaveLength(0);
    expect((await edit('claude-post-tool', { hook_event_name: 'PostToolUse', tool_response: {} })).stdout).toBe('');
    // The write recorded, the edit is over: B's next command that changes the file is put back to A's write.
    expect(contextOf((await shellCall(repo, B, 'b-2', 'echo clobbered > src/a.ts')).stdout)).toContain(`"src/a.ts" is held by ${owner(A)}`);
    expect(read(repo, 'src/a.ts')).toBe('v2 by A\n');
  });

  // Each writer at once: a command that appends to every other agent's file and writes its own unheld file.
  function runAgent(repo: TempRepo, i: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const command = `for f in src/f*.ts; do [ "$f" = src/f${i}.ts ] || echo "agent ${i} was here" >> "$f"; done; mkdir -p free; echo "agent ${i} own work" > free/${i}.txt`;
      const script = [
        `node ${snapshotScript(repo, `agent-${i}`, `c${i}`, command)
          .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
          .join(' ')}`,
        command,
        `printf '%s' '${payload(repo, `agent-${i}`, { hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'x' }, tool_use_id: `c${i}` })}' | ${IC_BIN} coord hook claude-post-tool > /dev/null`,
      ].join('\n');
      const child = spawn('bash', ['-c', script], { cwd: repo.dir, env: cleanEnv() as NodeJS.ProcessEnv, stdio: 'ignore' });
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`agent ${i} exited ${code}`))));
    });
  }

  it('concurrency: holders edit while many other agents’ shell commands run; no held content is lost, no writer’s unheld work reverted', async () => {
    const holders = 3;
    const writers = 5;
    const files: Record<string, string> = {};
    for (let i = 0; i < holders; i++) files[`src/f${i}.ts`] = `f${i} v0\n`;
    seed(repo, files);
    await Promise.all(Array.from({ length: holders }, (_, i) => claudeWrite(repo, `agent-${i}`, `src/f${i}.ts`, `f${i} held by agent ${i}\n`)));
    await Promise.all([
      ...Array.from({ length: writers }, (_, w) => runAgent(repo, holders + w)),
      ...Array.from({ length: holders }, (_, i) => claudeWrite(repo, `agent-${i}`, `src/f${i}.ts`, `f${i} edited again by agent ${i}\n`)),
    ]);
    for (let w = holders; w < holders + writers; w++) expect(read(repo, `free/${w}.txt`)).toBe(`agent ${w} own work\n`);
    // The holder's last write is never lost. An append that lands while that write is under way (between its
    // edit hook and its record) may stay after it, as docs/custody-restore.md says; nothing else may.
    for (let i = 0; i < holders; i++) expect(read(repo, `src/f${i}.ts`)).toMatch(new RegExp(`^f${i} edited again by agent ${i}\\n(agent [3-7] was here\\n)*$`));
    // How many appends needed putting back depends on how the holders' writes interleaved with them (a holder's
    // write after an append makes it moot), so the count is not fixed; every restore must be of a held file,
    // by one of the writers, for its holder.
    for (const event of await events(repo, 'restored')) {
      expect(event.pattern).toMatch(/^src\/f[0-2]\.ts$/);
      expect(event.owner).toMatch(/^claude-agent-[3-7]$/);
    }
  }, 60_000);

  it('concurrency: agents that hold files also run commands at once; each holder’s content survives and unheld work stays', async () => {
    const agents = 5;
    const files: Record<string, string> = {};
    for (let i = 0; i < agents; i++) files[`src/f${i}.ts`] = `f${i} v0\n`;
    seed(repo, files);
    await Promise.all(Array.from({ length: agents }, (_, i) => claudeWrite(repo, `agent-${i}`, `src/f${i}.ts`, `f${i} held by agent ${i}\n`)));
    await Promise.all(Array.from({ length: agents }, (_, i) => runAgent(repo, i)));
    for (let i = 0; i < agents; i++) {
      expect(read(repo, `free/${i}.txt`)).toBe(`agent ${i} own work\n`);
      // A write by another command while the holder's own command ran cannot be told from the holder's own
      // (docs/custody-restore.md, "Limits"): it may stay, but the holder's content is never lost.
      expect(read(repo, `src/f${i}.ts`).startsWith(`f${i} held by agent ${i}\n`)).toBe(true);
    }
  }, 60_000);

  it('codex-post-tool: a shell command’s write to a held file is put back; apply_patch of the holder is recorded as its latest', async () => {
    seed(repo, { 'held.txt': 'v0\n' });
    const codex = (session: string, fields: Record<string, unknown>) =>
      ic(repo, ['coord', 'hook', 'codex-post-tool'], {
        input: JSON.stringify({
          session_id: session,
          cwd: repo.dir,
          hook_event_name: 'PostToolUse',
          model: 'm',
          permission_mode: 'default',
          transcript_path: null,
          turn_id: 't',
          tool_response: '',
          ...fields,
        }),
      });
    const patch = '*** Begin Patch\n*** Update File: held.txt\n@@\n-v0\n+v1 by codex A\n*** End Patch\n';
    const pre = await ic(repo, ['coord', 'hook', 'codex-pre-edit'], {
      input: JSON.stringify({ session_id: 'cx-a', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: patch }, tool_use_id: 'p1' }),
    });
    expect(pre.stdout).toBe('');
    write(repo, 'held.txt', 'v1 by codex A\n');
    expect((await codex('cx-a', { tool_name: 'apply_patch', tool_input: { command: patch }, tool_use_id: 'p1' })).stdout).toBe('');
    // A script the before hook's reader cannot see into (kept in the git dir, outside the work tree).
    writeFileSync(join(repo.dir, '.git', 'clobber.py'), "open('held.txt', 'w').write('clobbered')\n");
    const clobber = 'python3 .git/clobber.py';
    const before = await ic(repo, ['coord', 'hook', 'codex-pre-shell'], {
      input: JSON.stringify({ session_id: 'cx-b', cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: clobber }, tool_use_id: 'b1' }),
    });
    expect(before.stdout).not.toContain('deny');
    bash(repo, clobber);
    const post = await codex('cx-b', { tool_name: 'Bash', tool_input: { command: clobber }, tool_use_id: 'b1' });
    expect(contextOf(post.stdout)).toContain('"held.txt" is held by codex-cx-a');
    expect(read(repo, 'held.txt')).toBe('v1 by codex A\n');
    expect((await events(repo, 'restored'))[0]).toMatchObject({ owner: 'codex-cx-b', pattern: 'held.txt' });
    // Without its before hook (failed open), Codex's after hook has no snapshot and no timing: nothing shows
    // the command wrote the file, so it is reported, never written.
    bash(repo, clobber);
    const unproven = await codex('cx-b', { tool_name: 'Bash', tool_input: { command: clobber }, tool_use_id: 'b2' });
    expect(contextOf(unproven.stdout)).toContain('"held.txt" (held by codex-cx-a) changed, but ic has no snapshot');
    expect(read(repo, 'held.txt')).toBe('clobbered');
    expect(await events(repo, 'unverified')).toMatchObject([{ owner: 'codex-cx-b', pattern: 'held.txt', detail: { holder: 'codex-cx-a', call_id: 'b2' } }]);
  });
});
