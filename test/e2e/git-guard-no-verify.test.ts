import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coord, ic, makeTempRepo, type TempRepo } from '../support/cli';
import { git, writeFile, writeScript } from '../hooks/git';

// The guard at the ref update (git's reference-transaction hook, installed with --git): a commit that
// skipped pre-commit (`git commit --no-verify`, a tool writing commits itself) may not land a file another
// owner holds. Real `git commit`s in temp repositories.

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

const asBob = { IC_OWNER: 'bob' };
const hooksDir = (repo: TempRepo) => join(repo.dir, '.git', 'hooks');

async function guarded(): Promise<TempRepo> {
  const repo = makeTempRepo('ic-noverify-');
  repos.push(repo);
  writeFile(repo.dir, 'README.md');
  writeFile(repo.dir, 'held.ts', 'v1\n');
  await git(repo.dir, ['add', '-A']);
  expect((await git(repo.dir, ['commit', '-q', '-m', 'init'])).exitCode).toBe(0);
  expect((await ic(repo, ['coord', 'install', '--git'])).exitCode).toBe(0);
  expect((await coord(repo, ['reserve', 'held.ts', '--owner', 'alice'])).exitCode).toBe(0);
  return repo;
}

const head = async (repo: TempRepo) => (await git(repo.dir, ['rev-parse', 'HEAD'])).stdout.trim();
const staged = async (repo: TempRepo) => (await git(repo.dir, ['diff', '--cached', '--name-only'])).stdout.trim();

describe('the guard at the ref update', () => {
  it("`git commit --no-verify` of another owner's held file is refused with the guard's message; nothing moves and the change stays staged", async () => {
    const repo = await guarded();
    const before = await head(repo);
    writeFile(repo.dir, 'held.ts', 'bob was here\n');
    await git(repo.dir, ['add', 'held.ts']);
    const guardSays = (await git(repo.dir, ['commit', '-q', '-m', 'take it'], asBob)).stderr; // pre-commit's refusal, for comparison
    const commit = await git(repo.dir, ['commit', '-q', '--no-verify', '-m', 'take it anyway'], asBob);
    expect(commit.exitCode).not.toBe(0);
    expect(commit.stderr).toContain(guardSays.trim());
    expect(commit.stderr).toContain('held by alice');
    expect(commit.stderr).toContain('(you are bob)');
    expect(commit.stderr).not.toMatch(/IC_GUARD|--no-verify/);
    expect(await head(repo)).toBe(before);
    expect(readFileSync(join(repo.dir, 'held.ts'), 'utf8')).toBe('bob was here\n');
    expect(await staged(repo)).toBe('held.ts');
  });

  it('the holder commits it with --no-verify; a path nobody holds goes through; IC_GUARD=warn and =off are the person’s switches', async () => {
    const repo = await guarded();
    writeFile(repo.dir, 'free.ts');
    await git(repo.dir, ['add', 'free.ts']);
    expect((await git(repo.dir, ['commit', '-q', '--no-verify', '-m', 'free'], asBob)).exitCode).toBe(0);
    writeFile(repo.dir, 'held.ts', 'alice v2\n');
    await git(repo.dir, ['add', 'held.ts']);
    expect((await git(repo.dir, ['commit', '-q', '--no-verify', '-m', 'mine'], { IC_OWNER: 'alice' })).exitCode).toBe(0);
    expect((await git(repo.dir, ['show', 'HEAD:held.ts'])).stdout).toBe('alice v2');
    for (const mode of ['warn', 'off']) {
      writeFile(repo.dir, 'held.ts', `bob ${mode}\n`);
      await git(repo.dir, ['add', 'held.ts']);
      const commit = await git(repo.dir, ['commit', '-q', '--no-verify', '-m', mode], { ...asBob, IC_GUARD: mode });
      expect(commit.exitCode).toBe(0);
      expect((await git(repo.dir, ['show', 'HEAD:held.ts'])).stdout).toBe(`bob ${mode}`);
    }
  });

  it('a tool that writes the commit itself (commit-tree + update-ref) is refused at the update too', async () => {
    const repo = await guarded();
    const before = await head(repo);
    writeFile(repo.dir, 'held.ts', 'tool\n');
    await git(repo.dir, ['add', 'held.ts']);
    const tree = (await git(repo.dir, ['write-tree'])).stdout.trim();
    const made = (await git(repo.dir, ['commit-tree', tree, '-p', before, '-m', 'by a tool'])).stdout.trim();
    const update = await git(repo.dir, ['update-ref', 'refs/heads/main', made, before], asBob);
    expect(update.exitCode).not.toBe(0);
    expect(update.stderr).toContain('held by alice');
    expect(await head(repo)).toBe(before);
  });

  it('other ref updates are not judged: a fast-forward to an existing commit, an amend of its message, a stash, a branch', async () => {
    const repo = await guarded();
    // alice commits her held file on a branch; bob fast-forwards main to it: an existing commit, not his.
    await git(repo.dir, ['checkout', '-q', '-b', 'alice-work']);
    writeFile(repo.dir, 'held.ts', 'alice on a branch\n');
    await git(repo.dir, ['add', 'held.ts']);
    expect((await git(repo.dir, ['commit', '-q', '-m', 'alice'], { IC_OWNER: 'alice' })).exitCode).toBe(0);
    await git(repo.dir, ['checkout', '-q', 'main']);
    const merge = await git(repo.dir, ['merge', '-q', '--ff-only', 'alice-work'], asBob);
    expect(merge.stderr).toBe('');
    expect(merge.exitCode).toBe(0);
    expect((await git(repo.dir, ['commit', '-q', '--amend', '--no-verify', '-m', 'alice, reworded'], asBob)).exitCode).toBe(0);
    expect((await git(repo.dir, ['show', 'HEAD:held.ts'])).stdout).toBe('alice on a branch');
    writeFile(repo.dir, 'held.ts', 'bob stashes\n');
    expect((await git(repo.dir, ['stash', '-q'], asBob)).exitCode).toBe(0);
    expect((await git(repo.dir, ['branch', 'another'], asBob)).exitCode).toBe(0);
    expect((await git(repo.dir, ['stash', 'pop', '-q'], asBob)).exitCode).toBe(0);
    expect(readFileSync(join(repo.dir, 'held.ts'), 'utf8')).toBe('bob stashes\n');
  });

  it('starts ic only for a commit moving the current branch: fetch, branch, tag, checkout and stash return in the script', async () => {
    const repo = await guarded();
    const calls = join(repo.dir, '.git', 'ic-calls');
    const hook = join(hooksDir(repo), 'reference-transaction');
    const fakeIc = join(repo.dir, '.git', 'fake-ic');
    writeScript(fakeIc, `#!/bin/sh\ncat >/dev/null\necho "$IC_GUARD_COMMIT $*" >> '${calls}'\n`);
    writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^ic_bin=.*$/m, `ic_bin='${fakeIc}'`));
    await git(repo.dir, ['branch', 'b1']);
    await git(repo.dir, ['tag', 't1']);
    await git(repo.dir, ['checkout', '-q', 'b1']);
    await git(repo.dir, ['checkout', '-q', 'main']);
    await git(repo.dir, ['fetch', '-q', repo.dir, 'main:refs/remotes/self/main']);
    writeFile(repo.dir, 'x.ts');
    await git(repo.dir, ['stash', '-q', '-u']);
    await git(repo.dir, ['stash', 'pop', '-q']);
    expect(() => readFileSync(calls, 'utf8')).toThrow();
    await git(repo.dir, ['add', 'x.ts']);
    await git(repo.dir, ['commit', '-q', '--no-verify', '-m', 'x']);
    expect(readFileSync(calls, 'utf8')).toBe('1 coord hook git-reference-transaction\n');
  });

  it("chains a user's reference-transaction hook (it runs first and its refusal stands); uninstall gives it back byte for byte", async () => {
    const repo = makeTempRepo('ic-noverify-chain-');
    repos.push(repo);
    const userHook = join(hooksDir(repo), 'reference-transaction');
    const text = "#!/bin/sh\n# the user's own\ncat >/dev/null\n[ -e no-refs ] && exit 1\nexit 0\n";
    writeFileSync(userHook, text);
    chmodSync(userHook, 0o751);
    const install = await ic(repo, ['coord', 'install', '--git']);
    expect(install.json.changed.filter((c: any) => c.file.startsWith(userHook))).toEqual([
      { file: `${userHook}.ic-backup`, action: 'backed_up' },
      { file: userHook, action: 'created' },
    ]);
    expect(readFileSync(userHook, 'utf8')).toContain('# ic-commit-guard');
    writeFile(repo.dir, 'no-refs');
    await git(repo.dir, ['add', 'no-refs']);
    expect((await git(repo.dir, ['commit', '-q', '--no-verify', '-m', 'refused by the user hook'])).exitCode).not.toBe(0);
    expect((await git(repo.dir, ['rev-parse', '-q', '--verify', 'HEAD'])).exitCode).not.toBe(0);
    expect((await ic(repo, ['coord', 'uninstall', '--git'])).exitCode).toBe(0);
    expect(readFileSync(userHook, 'utf8')).toBe(text);
  });
});
