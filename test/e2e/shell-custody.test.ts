import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

// Shell custody, before the command (#19): the real bin's claude-pre-shell / codex-pre-shell hooks read a
// shell command and deny it when it would write a file another owner holds; a command they allow is then
// run for real with bash, as the agent would.

const HOLDER = 'claude-aaaaaaaa-0000-4000-8000-000000000001';
const CLAUDE_SESSION = 'bbbbbbbb-0000-4000-8000-000000000002';
const WRITER = `claude-${CLAUDE_SESSION}`;
const CODEX_SESSION = 'cccccccc-0000-4000-8000-000000000003';

// The twelve writes of issue #19, each aimed at its own file (`git stash` takes them all).
const WRITES: [name: string, command: (file: string) => string][] = [
  ['echo >', (f) => `echo clobbered > ${f}`],
  ['sed -i', (f) => `sed -i 's/work/oops/' ${f}`],
  ['cat > f <<EOF', (f) => `cat > ${f} <<'EOF'\nclobbered\nEOF`],
  ['tee', (f) => `echo clobbered | tee ${f}`],
  ['python3 -c open(…, "w")', (f) => `python3 -c "open('${f}','w').write('clobbered')"`],
  ['cp', (f) => `cp README.md ${f}`],
  ['mv', (f) => `mv ${f} moved-away.txt`],
  ['git checkout --', (f) => `git checkout -- ${f}`],
  ['git restore', (f) => `git restore ${f}`],
  ['perl -pi', (f) => `perl -pi -e 's/work/oops/' ${f}`],
  ['rm', (f) => `rm ${f}`],
  ['git stash', () => 'git stash'],
];

const claudeBash = (repo: TempRepo, command: string, id: string) =>
  JSON.stringify({ session_id: CLAUDE_SESSION, cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command, description: 'x' }, tool_use_id: id });
const codexShell = (repo: TempRepo, command: string, id: string) =>
  JSON.stringify({ session_id: CODEX_SESSION, cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: id });

function denyOf(stdout: string): string | undefined {
  if (stdout === '') return undefined;
  const json = JSON.parse(stdout);
  return json.hookSpecificOutput?.permissionDecision === 'deny' ? json.hookSpecificOutput.permissionDecisionReason : undefined;
}

// What an agent does: ask the hook, and run the command with bash only when it was not denied.
async function agentRuns(repo: TempRepo, hook: 'claude-pre-shell' | 'codex-pre-shell', command: string, id: string): Promise<string | undefined> {
  const payload = hook === 'claude-pre-shell' ? claudeBash(repo, command, id) : codexShell(repo, command, id);
  const result = await ic(repo, ['coord', 'hook', hook], { input: payload, env: { CLAUDE_PROJECT_DIR: repo.dir } });
  expect(result.exitCode).toBe(0);
  const deny = denyOf(result.stdout);
  if (deny === undefined) execFileSync('bash', ['-c', command], { cwd: repo.dir, stdio: 'ignore' });
  return deny;
}

function git(repo: TempRepo, ...args: string[]): string {
  return execFileSync('git', ['-C', repo.dir, ...args], { encoding: 'utf8' });
}

// A repository with `files` committed, each then changed (uncommitted work) and reserved by HOLDER.
async function heldRepo(prefix: string, files: string[]): Promise<TempRepo> {
  const repo = makeTempRepo(prefix);
  mkdirSync(join(repo.dir, 'held'));
  writeFileSync(join(repo.dir, 'README.md'), 'readme\n');
  for (const file of files) writeFileSync(join(repo.dir, file), 'committed\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'init');
  for (const file of files) writeFileSync(join(repo.dir, file), `holder's work on ${file}\n`);
  const reserve = await coord(repo, ['reserve', ...files, '--reason', 'refactoring'], { env: { IC_OWNER: HOLDER } });
  expect(reserve.exitCode).toBe(0);
  return repo;
}

describe.each(['claude-pre-shell', 'codex-pre-shell'] as const)('%s: the twelve shell writes of #19 against held files', (hook) => {
  const files = WRITES.map((_, i) => `held/f${i + 1}.txt`);
  let repo: TempRepo;
  beforeAll(async () => {
    repo = await heldRepo(`ic-shell-${hook}-`, files);
  });
  afterAll(() => repo.cleanup());

  it('denies all twelve with who/why/until/next; every held file keeps its holder’s content; each try is an event', async () => {
    const denies: (string | undefined)[] = [];
    for (const [i, [, command]] of WRITES.entries()) denies.push(await agentRuns(repo, hook, command(files[i]!), `call-${i}`));
    expect(denies.map((deny, i) => [WRITES[i]![0], deny === undefined ? 'ran' : 'denied'])).toEqual(WRITES.map(([name]) => [name, 'denied']));
    for (const file of files) expect(readFileSync(join(repo.dir, file), 'utf8')).toBe(`holder's work on ${file}\n`);
    expect(git(repo, 'stash', 'list')).toBe('');
    expect(existsSync(join(repo.dir, 'moved-away.txt'))).toBe(false);
    expect(denies[0]).toContain(`is reserved by ${HOLDER}`);
    expect(denies[0]).toContain('(reason: refactoring)');
    expect(denies[0]).toMatch(/until .* unless released sooner/);
    expect(denies[0]).toContain('the command was not run');
    expect(denies[11]).toContain('these files'); // git stash: checked as every file of the repository
    for (const file of files) expect(denies[11]).toContain(JSON.stringify(file));

    const conflicts = (await coord(repo, ['events'])).json.events.filter((e: any) => e.type === 'conflict');
    const tries = new Set(conflicts.map((e: any) => e.detail.command));
    expect(tries.size).toBe(12);
    const owner = hook === 'claude-pre-shell' ? WRITER : `codex-${CODEX_SESSION}`;
    expect(conflicts.every((e: any) => e.owner === owner && e.detail.via === 'shell' && e.detail.held_owner === HOLDER)).toBe(true);
    const stats = (await coord(repo, ['stats'])).json;
    expect(JSON.stringify(stats)).toContain(HOLDER);
    // Nothing was reserved for the writer by a refused command.
    expect((await coord(repo, ['list', '--active', '--owner', owner])).json.locks).toEqual([]);
  });
});

describe('claude-pre-shell: what it allows runs, and what it writes is reserved for the writer', () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = await heldRepo('ic-shell-allowed-', ['held/other.txt']);
    mkdirSync(join(repo.dir, 'free'));
    for (let i = 1; i <= 11; i++) writeFileSync(join(repo.dir, `free/g${i}.txt`), 'work\n');
    git(repo, 'add', 'free');
    git(repo, 'commit', '-qm', 'free files');
    for (let i = 1; i <= 11; i++) writeFileSync(join(repo.dir, `free/g${i}.txt`), 'more work\n');
  });
  afterAll(() => repo.cleanup());

  it('eleven single-file writes to unheld files run and reserve their files; the stash of a repo with a held file is still denied', async () => {
    const singles = WRITES.slice(0, 11);
    for (const [i, [name, command]] of singles.entries()) expect([name, await agentRuns(repo, 'claude-pre-shell', command(`free/g${i + 1}.txt`), `ok-${i}`)]).toEqual([name, undefined]);
    expect(readFileSync(join(repo.dir, 'free/g1.txt'), 'utf8')).toBe('clobbered\n');
    expect(readFileSync(join(repo.dir, 'free/g8.txt'), 'utf8')).toBe('work\n'); // git checkout -- ran
    expect(existsSync(join(repo.dir, 'free/g11.txt'))).toBe(false); // rm ran
    const locks = (await coord(repo, ['list', '--active', '--owner', WRITER])).json.locks.map((lock: any) => lock.pattern).sort();
    expect(locks).toEqual([...Array.from({ length: 11 }, (_, i) => `free/g${i + 1}.txt`), 'moved-away.txt'].sort());
    const first = (await coord(repo, ['list', '--active', '--owner', WRITER])).json.locks.find((lock: any) => lock.pattern === 'free/g1.txt');
    expect(first).toMatchObject({ mode: 'exclusive', reason: 'shell command (agent hook, tool call ok-0)' }); // not an edit's: a failed command's writes stay held
    expect(await agentRuns(repo, 'claude-pre-shell', 'git stash', 'stash')).toContain(HOLDER);
    expect(readFileSync(join(repo.dir, 'held/other.txt'), 'utf8')).toBe("holder's work on held/other.txt\n");
  });

  it('a whole-tree write below the held file is allowed; one that covers it is denied', async () => {
    expect(await agentRuns(repo, 'claude-pre-shell', 'cd free && git checkout .', 'tree-1')).toBeUndefined();
    expect(await agentRuns(repo, 'claude-pre-shell', 'git checkout .', 'tree-2')).toContain('held/other.txt');
    expect(await agentRuns(repo, 'claude-pre-shell', 'rm -rf held', 'tree-3')).toContain(HOLDER);
    expect(await agentRuns(repo, 'claude-pre-shell', 'rm held/*.txt', 'tree-4')).toContain(HOLDER);
    expect(readFileSync(join(repo.dir, 'held/other.txt'), 'utf8')).toBe("holder's work on held/other.txt\n");
  });

  it('the holder itself is never refused by its own locks, but its git stash is, once the writer holds files too', async () => {
    const own = (command: string) => JSON.stringify({ session_id: 'aaaaaaaa-0000-4000-8000-000000000001', cwd: repo.dir, tool_name: 'Bash', tool_input: { command } });
    expect((await ic(repo, ['coord', 'hook', 'claude-pre-shell'], { input: own('echo mine >> held/other.txt && git checkout -- held/other.txt') })).stdout).toBe('');
    expect(denyOf((await ic(repo, ['coord', 'hook', 'claude-pre-shell'], { input: own('git stash') })).stdout)).toContain(WRITER);
  });
});

describe('shell hooks on the cheap path', () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo('ic-shell-cheap-');
  });
  afterAll(() => repo.cleanup());

  it('a command that writes nothing is allowed silently and opens no database', async () => {
    for (const command of ['ls -la', 'git status && git diff', 'npm test 2>&1 | tail -5', 'cat a > /dev/null']) {
      expect(await ic(repo, ['coord', 'hook', 'claude-pre-shell'], { input: claudeBash(repo, command, 'c') })).toMatchObject({ exitCode: 0, stdout: '' });
    }
    expect(existsSync(repo.db)).toBe(false);
  });

  it('an unreadable command is allowed (left to the after-command restore), never denied blindly', async () => {
    const result = await ic(repo, ['coord', 'hook', 'codex-pre-shell'], { input: codexShell(repo, 'echo x > "$(mktemp)"; eval "rm -rf x"', 'u') });
    expect(result).toMatchObject({ exitCode: 0, stdout: '' });
  });

  it('Codex: an argv array command (`bash -lc …`) in a workdir is read like a string', async () => {
    const held = await heldRepo('ic-shell-argv-', ['held/x.txt']);
    try {
      const payload = JSON.stringify({ session_id: CODEX_SESSION, cwd: held.dir, tool_name: 'shell', tool_input: { command: ['bash', '-lc', "sed -i 's/a/b/' x.txt"], workdir: 'held' } });
      const result = await ic(held, ['coord', 'hook', 'codex-pre-shell'], { input: payload });
      expect(denyOf(result.stdout)).toContain('"held/x.txt" is reserved by');
    } finally {
      held.cleanup();
    }
  });

  it('bad input allows with a notice, never exit 2', async () => {
    for (const input of ['', 'not json', '{"tool_name":"Bash","tool_input":{"command":"rm x"}}']) {
      const result = await ic(repo, ['coord', 'hook', 'claude-pre-shell'], { input });
      expect(result.exitCode).toBe(0);
      expect(result.json.systemMessage).toMatch(/^ic: shell command not checked/);
    }
  });
});

describe('other tools are edits: MCP tools through claude-pre-edit and codex-pre-edit', () => {
  let repo: TempRepo;
  beforeAll(async () => {
    repo = await heldRepo('ic-mcp-', ['held/a.ts']);
  });
  afterAll(() => repo.cleanup());

  const mcp = (tool: string, input: Record<string, unknown>, session = CLAUDE_SESSION) =>
    JSON.stringify({ session_id: session, cwd: repo.dir, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input });

  it('a writing MCP tool on a held file is denied; a reading one is not even read; a free file is reserved', async () => {
    const write = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: mcp('mcp__fs__write_file', { path: join(repo.dir, 'held/a.ts'), content: 'x' }) });
    expect(denyOf(write.stdout)).toContain(HOLDER);
    const move = await ic(repo, ['coord', 'hook', 'codex-pre-edit'], { input: mcp('mcp__fs__move_file', { source: 'README.md', destination: 'held/a.ts' }, CODEX_SESSION) });
    expect(denyOf(move.stdout)).toContain(HOLDER);
    const read = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: mcp('mcp__fs__read_text_file', { path: join(repo.dir, 'held/a.ts') }) });
    expect(read).toMatchObject({ exitCode: 0, stdout: '' });
    const free = await ic(repo, ['coord', 'hook', 'claude-pre-edit'], { input: mcp('mcp__fs__edit_file', { path: 'src/new.ts', edits: [] }) });
    expect(free).toMatchObject({ exitCode: 0, stdout: '' });
    expect((await coord(repo, ['list', '--active', '--owner', WRITER])).json.locks.map((l: any) => l.pattern)).toEqual(['src/new.ts']);
  });
});

describe('install: shell hooks by default, --no-shell leaves them out', () => {
  it('--no-shell installs no shell hook and takes back one installed before; --git-index with shell needs no claude-pre-bash', async () => {
    const repo = makeTempRepo('ic-shell-install-');
    try {
      const settings = join(repo.dir, '.claude', 'settings.local.json');
      const codex = join(repo.dir, '.codex', 'hooks.json');
      await ic(repo, ['coord', 'install', '--claude', '--codex', '--git-index', '--no-trust']);
      const withShell = readFileSync(settings, 'utf8');
      expect(withShell).toContain('claude-pre-shell');
      expect(withShell).not.toContain('claude-pre-bash');
      expect(readFileSync(codex, 'utf8')).toContain('codex-pre-shell');
      const off = await ic(repo, ['coord', 'install', '--claude', '--codex', '--git-index', '--no-shell', '--no-trust']);
      expect(off.exitCode).toBe(0);
      const without = readFileSync(settings, 'utf8');
      expect(without).not.toContain('claude-pre-shell');
      expect(without).toContain('claude-pre-bash');
      expect(readFileSync(codex, 'utf8')).not.toContain('codex-pre-shell');
      expect(JSON.parse(readFileSync(codex, 'utf8')).hooks.PreToolUse[0].matcher).toBe('apply_patch|Bash|mcp__.*');
    } finally {
      repo.cleanup();
    }
  });
});
