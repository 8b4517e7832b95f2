import { describe, expect, it } from 'vitest';
import { shellWrites, type Disk } from '../../../src/core/shell/index';
import { MAX_COMMAND_CHARS } from '../../../src/core/shell/lex';
import { mayWriteVisibly } from '../../../src/core/shell/programs';
import fc from 'fast-check';
import { expectLinear } from '../../support/growth';

// A disk of a few directories and files under /r, the command's starting directory.
const DIRS = new Set(['/', '/r', '/r/src', '/r/lib', '/r/out', '/home/u', '/tmp']);
const FILES: Record<string, string> = {
  '/r/a.txt': 'a',
  '/r/src/a.ts': 'x',
  '/r/fix.diff': '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-x\n+y\n',
  '/r/plain.diff': '--- src/b.ts\n+++ src/b.ts\n@@ -1 +1 @@\n-x\n+y\n',
};
const disk: Disk = {
  exists: (path) => DIRS.has(path) || path in FILES,
  isDirectory: (path) => DIRS.has(path),
  readFile: (path) => FILES[path],
};

// Each target as one short string: a file by path, a checked pattern as `dir :: pattern`, a whole repository as `repo(dir)`.
function read(command: string, cwd = '/r'): { writes: string[]; unreadable: number } {
  const result = shellWrites(command, { cwd, home: '/home/u', disk });
  return {
    writes: result.targets.map((t) => (t.kind === 'file' ? t.path : t.repo ? `repo(${t.dir})` : `${t.dir} :: ${t.pattern}`)),
    unreadable: result.unreadable.length,
  };
}

type Case = [name: string, command: string, writes: string[], unreadable?: number];

const CASES: Case[] = [
  // redirections
  ['plain >', 'echo x > a.txt', ['/r/a.txt']],
  ['>> append', 'echo x >> a.txt', ['/r/a.txt']],
  ['no space', 'echo x>a.txt', ['/r/a.txt']],
  ['>| clobber', 'echo x >| a.txt', ['/r/a.txt']],
  ['&> both', 'make &> out/log', ['/r/out/log']],
  ['&>> both append', 'make &>> out/log', ['/r/out/log']],
  ['2> stderr', 'make 2> err.txt', ['/r/err.txt']],
  ['2>&1 is no file', 'make > log 2>&1', ['/r/log']],
  ['>&2 is no file', 'echo oops >&2', []],
  ['>& file is a file', 'make >& both.txt', ['/r/both.txt']],
  ['/dev/null is nothing', 'make 2>/dev/null >/dev/null', []],
  ['< reads only', 'sort < a.txt', []],
  ['<> opens for writing', 'cat <> a.txt', ['/r/a.txt']],
  ['absolute target', 'echo x > /r/src/a.ts', ['/r/src/a.ts']],
  ['target with .. normalised', 'echo x > src/../a.txt', ['/r/a.txt']],
  ['redirect before the command', '> a.txt echo x', ['/r/a.txt']],
  ['redirect with nothing else', ': > a.txt', ['/r/a.txt']],
  ['heredoc into cat >', "cat > src/a.ts <<'EOF'\nconst a = 1;\nEOF", ['/r/src/a.ts']],
  ['heredoc then more commands', 'cat <<EOF > a.txt\nhello $USER\nEOF\necho done > b.txt', ['/r/a.txt', '/r/b.txt']],
  ['heredoc <<- with tabs', 'cat <<-EOF >a.txt\n\tx\n\tEOF\ntouch c', ['/r/a.txt', '/r/c']],
  ['heredoc body is not a command', "cat > a.txt <<'EOF'\nrm -rf /\necho > evil\nEOF", ['/r/a.txt']],
  ['here-string', 'cat <<< "x > y" > a.txt', ['/r/a.txt']],
  // lists, pipelines, subshells, braces
  ['; list', 'echo a > x; echo b > y', ['/r/x', '/r/y']],
  ['&& and ||', 'true && echo a > x || echo b > y', ['/r/x', '/r/y']],
  ['background &', 'sleep 1 & echo a > x', ['/r/x']],
  ['pipeline into tee', 'echo x | tee a.txt', ['/r/a.txt']],
  ['tee -a many', 'echo x | tee -a a.txt src/a.ts > /dev/null', ['/r/a.txt', '/r/src/a.ts']],
  ['|& pipeline', 'make |& tee log', ['/r/log']],
  ['subshell', '(echo x > a.txt)', ['/r/a.txt']],
  ['braces', '{ echo x; echo y; } > a.txt', ['/r/a.txt']],
  ['newlines', 'echo 1 > a\necho 2 > b', ['/r/a', '/r/b']],
  ['comment is not a command', 'echo x # > not-a-file', []],
  ['if/then/fi', 'if true; then echo x > a.txt; fi', ['/r/a.txt']],
  ['while loop', 'while read l; do echo "$l" >> out/log; done < a.txt', ['/r/out/log']],
  ['for loop words are not commands', 'for f in rm x; do touch done.txt; done', ['/r/done.txt']],
  ['function definition body', 'f() { rm a.txt; }; f', ['/r/a.txt']],
  // cd tracking
  ['cd then write', 'cd src && echo x > a.ts', ['/r/src/a.ts']],
  ['cd absolute', 'cd /tmp; rm f', ['/tmp/f']],
  ['cd in a subshell is undone', '(cd src && touch a.ts); touch b', ['/r/src/a.ts', '/r/b']],
  ['cd in braces stays', '{ cd src; }; touch a.ts', ['/r/src/a.ts']],
  ['cd in a pipeline stage stays there', 'cd src | true; touch a', ['/r/a']],
  ['cd - loses the directory', 'cd - && touch a', [], 1],
  ['cd "$dir" loses the directory', 'cd "$dir" && touch a && touch /abs/b', ['/abs/b'], 1],
  ['bare cd goes home', 'cd && touch a', ['/home/u/a']],
  ['cd ~/x', 'cd ~/proj && touch a', ['/home/u/proj/a']],
  ['pushd', 'pushd src && rm a.ts', ['/r/src/a.ts']],
  // env prefixes and wrappers
  ['env prefix', 'FOO=1 BAR="a b" sed -i s/a/b/ a.txt', ['/r/a.txt']],
  ['env prefix with expansion', 'X=$(date) rm a.txt', ['/r/a.txt']],
  ['env wrapper', 'env -i PATH=/bin rm a.txt', ['/r/a.txt']],
  ['sudo -u', 'sudo -u root rm a.txt', ['/r/a.txt']],
  ['timeout', 'timeout -s KILL 10 rm a.txt', ['/r/a.txt']],
  ['nohup and nice', 'nohup nice -n 5 touch a.txt', ['/r/a.txt']],
  ['command builtin', 'command rm -f a.txt', ['/r/a.txt']],
  ['full program path', '/bin/rm a.txt', ['/r/a.txt']],
  // nested shells
  ['bash -c', `bash -c 'echo x > a.txt'`, ['/r/a.txt']],
  ['sh -c after cd', `cd src && sh -c "rm a.ts"`, ['/r/src/a.ts']],
  ['bash -lc', `bash -lc 'cd lib && touch x'`, ['/r/lib/x']],
  ['bash -c nested twice', `bash -c "bash -c 'rm a.txt'"`, ['/r/a.txt']],
  ['bash -c with expansion', 'bash -c "$CMD"', [], 1],
  ['bash script.sh is not read', 'bash run.sh', []],
  ['bash fed a heredoc', "bash <<'EOF'\nrm a.txt\nEOF", ['/r/a.txt']],
  ['nesting is bounded', `bash -c "bash -c \\"bash -c 'bash -c \\\\\\"bash -c \\\\\\\\\\\\\\"bash -c x\\\\\\\\\\\\\\"\\\\\\"'\\""`, [], 1],
  // verbs
  ['sed -i', "sed -i 's/a/b/' a.txt src/a.ts", ['/r/a.txt', '/r/src/a.ts']],
  ['sed -i.bak', "sed -i.bak 's/a/b/' a.txt", ['/r/a.txt']],
  ['sed --in-place', "sed --in-place -e 's/a/b/' a.txt", ['/r/a.txt']],
  ['sed -E -i -e', "sed -E -i -e 's/a/b/' -e 's/c/d/' a.txt", ['/r/a.txt']],
  ['sed -ni', "sed -ni 's/a/b/p' a.txt", ['/r/a.txt']],
  ["BSD sed -i ''", "sed -i '' 's/a/b/' a.txt", ['/r/a.txt']],
  ['gawk -i inplace', "gawk -i inplace '{print}' a.txt", ['/r/a.txt']],
  ['awk without inplace writes nothing', 'awk \'{print > "x"}\' a.txt', []],
  ['sed without -i writes nothing', "sed 's/a/b/' a.txt", []],
  ['perl -pi -e', "perl -pi -e 's/a/b/' a.txt", ['/r/a.txt']],
  ['perl -i.bak -pe', "perl -i.bak -pe 's/a/b/' a.txt", ['/r/a.txt']],
  ['perl -pe without -i', "perl -pe 's/a/b/' a.txt", []],
  ['perl -0pi -e (-0 takes digits only)', "perl -0pi -e 's/a/b/' a.txt", ['/r/a.txt']],
  ['perl -lpi -e (-l takes digits only)', "perl -lpi -e 's/a/b/' a.txt", ['/r/a.txt']],
  ['perl -0777 -pi -e', "perl -0777 -pi -e 's/a/b/' a.txt", ['/r/a.txt']],
  ['cp to a file', 'cp a.txt b.txt', ['/r/b.txt']],
  ['cp into a directory', 'cp a.txt src', ['/r/src/a.txt']],
  ['cp many into a directory', 'cp a.txt lib/b.txt out/', ['/r/out/a.txt', '/r/out/b.txt']],
  ['cp -t DIR', 'cp -t src a.txt', ['/r/src/a.txt']],
  ['cp --target-directory=', 'cp --target-directory=src a.txt', ['/r/src/a.txt']],
  ['cp -r a directory', 'cp -r src newdir', ['/r/newdir :: **']],
  ['cp -T', 'cp -T a.txt src/a.ts', ['/r/src/a.ts']],
  ['mv moves both', 'mv a.txt src/a.ts', ['/r/src/a.ts', '/r/a.txt']],
  ['mv a directory', 'mv src lib', ['/r/lib/src :: **', '/r/src :: **']],
  ['install', 'install -m 644 a.txt out/a.txt', ['/r/out/a.txt']],
  ['install -d makes directories only', 'install -d out/x', []],
  ['ln -sf', 'ln -sf a.txt b.txt', ['/r/b.txt']],
  ['ln into cwd', 'ln -s /etc/hosts', ['/r/hosts']],
  ['rsync', 'rsync -a --exclude node_modules src/ out/', ['/r/out :: **']],
  ['rsync remote is nothing here', 'rsync -a src/ host:/backup', []],
  ['rm', 'rm -f a.txt src/a.ts', ['/r/a.txt', '/r/src/a.ts']],
  ['rm -rf a directory', 'rm -rf src', ['/r/src :: **']],
  ['rm -- -weird', 'rm -- -weird', ['/r/-weird']],
  ['truncate -s 0', 'truncate -s 0 a.txt', ['/r/a.txt']],
  ['sort -o', 'sort -r -o a.txt a.txt', ['/r/a.txt']],
  ['sort --output=', 'sort --output=src/a.ts -k 2 a.txt', ['/r/src/a.ts']],
  ['sort without -o writes nothing', 'sort -k 2 -t , a.txt', []],
  ['find -delete', "find src lib -name '*.ts' -delete", ['/r/src :: **', '/r/lib :: **']],
  ['find with no start -delete', "find -name '*.orig' -delete", ['/r :: **']],
  ['find -exec rm', "find src -name '*.bak' -exec rm {} +", ['/r/src :: **']],
  ['find -exec grep writes nothing', "find src -name '*.ts' -exec grep -l TODO {} +", []],
  ['npx wrapper', 'npx --yes sed -i s/a/b/ a.txt', ['/r/a.txt']],
  ['touch -d', 'touch -d yesterday a.txt', ['/r/a.txt']],
  ['dd of=', 'dd if=/dev/zero of=a.txt bs=1 count=1', ['/r/a.txt']],
  ['patch -i (git-style a/ b/)', 'patch -p1 -i fix.diff', ['/r/src/a.ts']],
  ['patch < file', 'patch -p1 < fix.diff', [], 1],
  ['patch fed a heredoc', 'patch -p0 <<EOF\n--- src/b.ts\n+++ src/b.ts\n@@ -1 +1 @@\n-x\n+y\nEOF', ['/r/src/b.ts']],
  ['patch ORIGFILE', 'patch a.txt fix.diff', ['/r/a.txt']],
  ['patch -o', 'patch -o out.txt a.txt fix.diff', ['/r/out.txt']],
  ['patch file argument', 'patch -p0 -i plain.diff', ['/r/src/b.ts']],
  ['apply_patch heredoc (Codex)', "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.ts\n@@\n-x\n+y\n*** End Patch\nEOF", ['/r/src/a.ts']],
  ['apply_patch argument', "apply_patch '*** Begin Patch\n*** Add File: n.ts\n+x\n*** End Patch'", ['/r/n.ts']],
  ['chmod writes no content', 'chmod +x a.txt', []],
  ['readers write nothing', 'cat a.txt | grep x | sort | head -3', []],
  ['python -c open(…, "w")', `python3 -c "open('a.txt','w').write('x')"`, ['/r/a.txt']],
  ['python -c open(…) to read', `python3 -c "print(open('a.txt').read())"`, []],
  ['python -c Path.write_text', `python -c "from pathlib import Path; Path('src/a.ts').write_text('y')"`, ['/r/src/a.ts']],
  ['python -c os.remove', `python3 -c 'import os; os.remove("a.txt")'`, ['/r/a.txt']],
  ['python -c shutil.copy', `python3 -c 'import shutil; shutil.copy("a.txt", "b.txt")'`, ['/r/b.txt']],
  ['node -e writeFileSync', `node -e "require('fs').writeFileSync('a.txt', 'x')"`, ['/r/a.txt']],
  ['node -e readFileSync writes nothing', `node -e "console.log(require('fs').readFileSync('a.txt', 'utf8'))"`, []],
  ['python script file is left to restore', 'python3 gen.py', []],
  // git
  ['git checkout -- file', 'git checkout -- a.txt', ['/r/a.txt']],
  ['git checkout HEAD -- file', 'git checkout HEAD~1 -- src/a.ts', ['/r/src/a.ts']],
  ['git checkout existing file without --', 'git checkout src/a.ts', ['/r/src/a.ts']],
  ['git checkout .', 'git checkout .', ['/r :: **']],
  ['git checkout a branch', 'git checkout main', ['repo(/r)']],
  ['git checkout -b new keeps the tree', 'git checkout -b feature', []],
  ['git restore', 'git restore src/a.ts', ['/r/src/a.ts']],
  ['git restore --staged only', 'git restore --staged src/a.ts', []],
  ['git restore --source', 'git restore --source=HEAD~2 --worktree --staged a.txt', ['/r/a.txt']],
  ['git restore a directory', 'git restore src', ['/r/src :: **']],
  ['git reset --hard', 'git reset --hard HEAD~1', ['repo(/r)']],
  ['git reset (mixed) is the index', 'git reset HEAD a.txt', []],
  ['git stash', 'git stash', ['repo(/r)']],
  ['git stash -u', 'git stash -u', ['repo(/r)']],
  ['git stash push -- path', 'git stash push -m wip -- src/a.ts', ['/r/src/a.ts']],
  ['git stash pop', 'git stash pop', ['repo(/r)']],
  ['git stash list', 'git stash list', []],
  ['git clean -fd', 'git clean -fd', ['/r :: **']],
  ['git clean -n', 'git clean -nd', []],
  ['git clean in a subdirectory', 'cd src && git clean -fdx', ['/r/src :: **']],
  ['git apply', 'git apply fix.diff', ['/r/src/a.ts']],
  ['git apply --check', 'git apply --check fix.diff', []],
  ['git apply --cached', 'git apply --cached fix.diff', []],
  ['git apply heredoc', "git apply <<'EOF'\ndiff --git a/x.ts b/x.ts\n--- a/x.ts\n+++ b/x.ts\nEOF", ['/r/x.ts']],
  ['git am', 'git am < mails', ['repo(/r)']],
  ['git rm', 'git rm -q a.txt', ['/r/a.txt']],
  ['git rm --cached', 'git rm --cached a.txt', []],
  ['git mv', 'git mv a.txt b.txt', ['/r/a.txt', '/r/b.txt']],
  ['git -C dir', 'git -C src checkout -- a.ts', ['/r/src/a.ts']],
  ['git -c option', 'git -c core.x=1 stash', ['repo(/r)']],
  ['git merge', 'git merge origin/main', ['repo(/r)']],
  ['git merge --abort', 'git merge --abort', []],
  ['git pull', 'git pull --rebase', ['repo(/r)']],
  ['git switch', 'git switch main', ['repo(/r)']],
  ['git switch -c', 'git switch -c new', []],
  ['git status and friends', 'git status && git diff && git log && git add . && git commit -m x', []],
  ['git --work-tree', 'git --work-tree=/x checkout .', [], 1],
  // globs
  ['rm with a glob', 'rm src/*.ts', ['/r/src :: *.ts']],
  ['quoted glob is literal', "rm 'src/*.ts'", ['/r/src/*.ts']],
  ['escaped glob is literal', 'rm src/\\*.ts', ['/r/src/*.ts']],
  ['brace list', 'rm src/{a,b}.ts', ['/r/src :: {a,b}.ts']],
  ['glob in a redirect', 'echo x > src/*.ts', ['/r/src :: *.ts']],
  ['glob in the middle', 'rm src/*/x.ts', ['/r/src :: */x.ts']],
  ['git checkout a glob', "git checkout -- 'src/*.ts'", ['/r/src/*.ts']],
  // quoting
  ['double quotes', 'echo x > "my file.txt"', ['/r/my file.txt']],
  ['single quotes', "echo x > 'it''s'", ['/r/its']],
  ['escaped space', 'echo x > my\\ file', ['/r/my file']],
  ["$'…' escapes", "echo x > $'a\\tb'", ['/r/a\tb']],
  ["$'…' hex and octal", "rm $'\\x61\\056txt'", ['/r/a.txt']],
  ['mixed quotes', `rm "a"'.'txt`, ['/r/a.txt']],
  ['escaped quote inside double quotes', 'echo x > "a\\"b"', ['/r/a"b']],
  ['operators inside quotes are text', `echo "x > y; rm z" > a.txt`, ['/r/a.txt']],
  ['semicolon glued to a word', 'touch a;touch b', ['/r/a', '/r/b']],
  ['line continuation', 'rm \\\n  a.txt', ['/r/a.txt']],
  ['a dollar alone', 'echo $ > a.txt', ['/r/a.txt']],
  // unreadable
  ['command substitution in a target', 'echo x > "$(mktemp)"', [], 1],
  ['variable in a target', 'echo x > $OUT', [], 1],
  ['backquotes in a target', 'rm `cat list`', [], 1],
  ['eval', 'eval "rm a.txt"', [], 1],
  ['xargs rm', 'find . -name "*.o" | xargs rm -f', [], 1],
  ['unterminated quote', "echo 'x > a.txt", [], 1],
  ['unterminated double quote', 'echo "x > a.txt', [], 1],
  ['a case statement', 'case x in a) rm a.txt;; esac', [], 1],
  ['~user is unreadable', 'rm ~bob/a.txt', [], 1],
  ['process substitution is no file', 'diff <(sort a) <(sort b) > out.txt', ['/r/out.txt']],
  ['tee into a process substitution', 'echo x | tee >(cat) a.txt', ['/r/a.txt'], 1],
  ['an unbalanced parenthesis', 'echo x ) > a.txt', ['/r/a.txt'], 1],
  ['a program named by a variable', '$EDITOR a.txt', [], 1],
];

describe('shellWrites: the files a command visibly writes', () => {
  it.each(CASES)('%s: %j', (_name, command, writes, unreadable = 0) => {
    const result = read(command);
    expect(result.writes).toEqual(writes);
    expect(result.unreadable).toBe(unreadable);
  });

  it('reads very long input in bounded time, and refuses input past the limit', () => {
    // Quadratic work would take minutes on 5,000 commands; linear time is told by growth, not by a bound in ms.
    expectLinear((scale) => {
      const count = 5_000 * scale;
      expect(read(Array.from({ length: count }, (_, i) => `echo ${i} > f${i}`).join('; ')).writes).toHaveLength(count);
    }, 'shellWrites');
    expect(read(`echo x > a; ${'x'.repeat(MAX_COMMAND_CHARS)}`)).toEqual({ writes: [], unreadable: 1 });
  });

  it('never throws on hostile input', () => {
    const hostile = ['\\', "$'", '$(', '${', '`', '"$(', "'", '<<', '<<EOF', '>', '2>', '&>', '((((', '))))', '{ }', '$((1+', 'a\0b > c', '> >', ';;;', '|||'];
    for (const text of hostile) expect(() => shellWrites(text, { cwd: '/r', disk })).not.toThrow();
  });
});

// The fast path skips the reader when the quick scan says a command cannot write visibly (src/hooks/fast/).
// The scan may say "maybe" too often, never "no" where the reader names a file.
describe('mayWriteVisibly: the quick scan before the reader', () => {
  it.each(CASES.filter(([, , writes]) => writes.length > 0))('says maybe for %s', (_name, command) => {
    expect(mayWriteVisibly(command)).toBe(true);
  });

  it.each([
    ['a test run', 'npm test'],
    ['a listing', 'ls -la src && cat README.md | grep -n x'],
    ['a variable', 'echo "$HOME" $PATH'],
    ['a here-string', 'wc -l <<< "$X"'],
    ['a cd', 'cd src; ls'],
  ])('says no for %s', (_name, command) => {
    expect(mayWriteVisibly(command)).toBe(false);
    expect(shellWrites(command, { cwd: '/r', home: '/home/u', disk }).targets).toEqual([]);
  });

  it.each([
    ['a quoted program', `r'm' a.txt`],
    ['a backslash inside the name', 'r\\m a.txt'],
    ['a line continuation inside the name', 'r\\\nm a.txt'],
    ['ANSI-C quoting', "$'\\x72m' a.txt"],
    ['a path to the program', '/usr/bin/tee a.txt'],
    ['a wrapper', 'FOO=1 nice -n 5 sed -i s/x/y/ a.txt'],
    ['a subshell', '(cd src && touch a.ts)'],
    ['a brace group', '{ cp a.txt b.txt; }'],
  ])('says maybe for %s', (_name, command) => {
    expect(mayWriteVisibly(command)).toBe(true);
  });

  // Commands built from the pieces that change how bash spells a word: whenever the scan says no, the
  // reader names no file either.
  it('never says no where the reader names a file (property, against the reader itself)', () => {
    const pieces = [
      ...['rm', 'tee', 'cp', 'mv', 'sed', '-i', 'touch', 'dd', 'of=a.txt', 'git', 'checkout', 'python3', '-c', 'bash', 'sh', 'sudo', 'env', 'xargs'],
      ...['a.txt', 'src/a.ts', '/usr/bin/', 'x', 'r', 'm', 'e', 't', "'", '"', '\\', '\\\n', '$', "$'", '$"', '{', '}', ',', '=', '~/'],
      ...[' ', ' ', ' ', ';', '&&', '||', '|', '(', ')', '\n', '<', '<<', '<<<', '`', '$(', '>'],
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const command = parts.join('');
        if (!mayWriteVisibly(command)) expect(shellWrites(command, { cwd: '/r', home: '/home/u', disk }).targets).toEqual([]);
      }),
      { numRuns: 20_000 },
    );
  });
});
