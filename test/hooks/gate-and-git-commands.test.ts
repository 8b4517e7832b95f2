// Pure pieces of the commit gate and of the git-command check (no process, no database).
import { describe, expect, it } from 'vitest';
import { DEFAULT_GATE_PATTERN, messageText, namedItems } from '../../src/hooks/commit-gate';
import { runsGit } from '../../src/hooks/runs-git';

describe('runsGit: which Bash commands get the private-index check', () => {
  it.each([
    ['git status', true],
    ['cd sub && git commit -m x', true],
    ['(git add a)', true],
    ['FOO=1 git diff', true],
    ['echo $(git rev-parse HEAD)', true],
    // issue #20: `git` right after a quote, a path, a wrapper
    ["bash -c 'git commit --no-verify -m x'", true],
    ['sh -c "git commit -am x"', true],
    ['/usr/bin/git commit -m x', true],
    ['xargs git add', true],
    ['env GIT_DIR=.git git log', true],
    ['ls -la', false],
    ['npm run digit', false],
    ['gitk', false],
    ['cat .gitignore', false],
    ['legit command', false],
  ])('%s → %s', (command, expected) => {
    expect(runsGit(command)).toBe(expected);
  });
});

describe('the commit gate reads the message as git keeps it', () => {
  it('drops comment lines and everything below the scissors line', () => {
    const raw = 'fix the parser\n# bd-1 in a comment does not count\n\nRefs bd-2\n# ------------------------ >8 ------------------------\ndiff mentions bd-3\n';
    expect(namedItems(messageText(raw), DEFAULT_GATE_PATTERN)).toEqual(['bd-2']);
  });

  it('drops comment lines of the configured comment string, and of every auto candidate', () => {
    const raw = '; bd-12 stripped by --cleanup=strip\nbd-3 kept\n#bd-4 kept with commentChar=;\n; ------------------------ >8 ------------------------\nbd-5\n';
    expect(namedItems(messageText(raw, [';']), DEFAULT_GATE_PATTERN)).toEqual(['bd-3', 'bd-4']);
    expect(namedItems(messageText('@ bd-1\n: bd-2\n|bd-3\nbd-6', ['#', ';', '@', '!', '$', '%', '^', '&', '|', ':']), DEFAULT_GATE_PATTERN)).toEqual(['bd-6']);
    expect(namedItems(messageText('// bd-1\n/ bd-2', ['//']), DEFAULT_GATE_PATTERN)).toEqual(['bd-2']);
  });

  it('finds every distinct item, in order', () => {
    expect(namedItems('bd-9: follow-up to bd-a1 and bd-9', DEFAULT_GATE_PATTERN)).toEqual(['bd-9', 'bd-a1']);
    expect(namedItems('PROJ-12 and PROJ-7', 'PROJ-[0-9]+')).toEqual(['PROJ-12', 'PROJ-7']);
    expect(namedItems('no item here', DEFAULT_GATE_PATTERN)).toEqual([]);
  });
});
