// The commit gate cannot be beaten by a line git strips, nor hung by its pattern (issue #21, finding 10).
// Real git commits through the installed commit-msg hook in temp repositories.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv, coord, ic, makeTempRepo, type TempRepo } from '../support/cli';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const repo of repos.splice(0)) repo.cleanup();
});

// The gate's own answer says it judged the message within its hook budget (out of time it answers by the fail
// policy instead). The wall clock only tells an answer from a hang: a backtracking engine needs hours on these
// patterns, while a loaded 2-core machine stretches a whole `git commit` to 13 s and more.
const NOT_HUNG_MS = 60_000;

let counter = 0;
function commit(repo: TempRepo, gitArgs: string[], message: string): { ok: boolean; stderr: string; ms: number } {
  writeFileSync(join(repo.dir, 'work.txt'), `change ${++counter}\n`);
  execFileSync('git', ['add', 'work.txt'], { cwd: repo.dir });
  writeFileSync(join(repo.dir, '.git', 'MSG'), message);
  const startedAt = Date.now();
  const result = spawnSync('git', [...gitArgs, 'commit', '-q', '-F', join(repo.dir, '.git', 'MSG')], {
    cwd: repo.dir,
    env: cleanEnv({ IC_OWNER: 'alice' }) as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 2 * NOT_HUNG_MS,
  });
  return { ok: result.status === 0, stderr: result.stderr, ms: Date.now() - startedAt };
}

async function gated(pattern?: string): Promise<TempRepo> {
  const repo = makeTempRepo('ic-gate-stored-');
  repos.push(repo);
  expect((await ic(repo, ['coord', 'install', '--git', pattern === undefined ? '--commit-gate' : `--commit-gate=${pattern}`])).exitCode).toBe(0);
  expect((await coord(repo, ['claim', 'bd-12', '--owner', 'alice'])).exitCode).toBe(0);
  return repo;
}

describe('the gate judges the message as git stores it', () => {
  it('with core.commentChar=; a line "; bd-12" does not satisfy the gate (git --cleanup=strip would drop it)', async () => {
    const repo = await gated();
    execFileSync('git', ['config', 'core.commentChar', ';'], { cwd: repo.dir });
    const stripped = commit(repo, [], 'fix the parser\n; bd-12\n');
    expect(stripped.ok).toBe(false);
    expect(stripped.stderr).toMatch(/names no work item/);
    // The same line, when it is not a comment, counts; and `#` is text under commentChar=;.
    expect(commit(repo, [], 'fix the parser\n#bd-12\n').ok).toBe(true);
    const log = execFileSync('git', ['log', '-1', '--format=%B'], { cwd: repo.dir, encoding: 'utf8' });
    expect(log).toContain('#bd-12');
  });

  it('with commentChar given on the command line (git -c) or as auto, a possible comment line does not count', async () => {
    const repo = await gated();
    expect(commit(repo, ['-c', 'core.commentChar=;', '-c', 'commit.cleanup=strip'], 'fix\n; bd-12\n').ok).toBe(false);
    expect(commit(repo, ['-c', 'core.commentChar=auto'], 'fix\n@ bd-12\n').ok).toBe(false);
    expect(commit(repo, ['-c', 'core.commentChar=auto'], 'bd-12: fix\n').ok).toBe(true);
  });
});

describe('the gate pattern runs in linear time', () => {
  it('install refuses bd-(a+)+! (a pattern a backtracking engine takes minutes on) with 65 and writes no hook', async () => {
    const repo = makeTempRepo('ic-gate-redos-');
    repos.push(repo);
    const result = await ic(repo, ['coord', 'install', '--git', '--commit-gate=bd-(a+)+!']);
    expect(result.exitCode).toBe(65);
    expect(result.json.error.message).toMatch(/groups and \| are not supported/);
    expect(() => readFileSync(join(repo.dir, '.git', 'hooks', 'commit-msg'))).toThrow();
  });

  it(
    'a hook written with such a pattern by hand does not hang the commit: the gate reports the pattern and the commit proceeds',
    async () => {
      const repo = await gated();
      const hook = join(repo.dir, '.git', 'hooks', 'commit-msg');
      writeFileSync(hook, readFileSync(hook, 'utf8').replace(/^gate_pattern=.*$/m, "gate_pattern='bd-(a+)+!'"));
      const result = commit(repo, [], `bd-${'a'.repeat(32)}\n`);
      expect(result.ms).toBeLessThan(NOT_HUNG_MS);
      expect(result.stderr).toMatch(/gate failed: INVALID_INPUT: --commit-gate "bd-\(a\+\)\+!": not a usable item pattern/);
    },
    3 * NOT_HUNG_MS,
  );

  it(
    'an installed pattern with many quantifiers takes a 100 KB message in stride',
    async () => {
      const repo = await gated('bd-a+a+a+a+a+a+a+a+[0-9]+');
      const result = commit(repo, [], `bd-12 ${'a'.repeat(100_000)} bd-${'a'.repeat(50_000)}7\n`);
      expect(result.stderr).toMatch(/names bd-a+7, which alice does not hold/);
      expect(result.ok).toBe(false);
      expect(result.ms).toBeLessThan(NOT_HUNG_MS);
    },
    3 * NOT_HUNG_MS,
  );
});
