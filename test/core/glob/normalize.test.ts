import { describe, expect, test } from 'vitest';
import { normalizePattern } from '../../../src/core/glob';
import { IcError } from '../../../src/core/errors';

const ROOT = '/tmp/x/repo';
const DIRS = new Set(['src', 'src/app', 'docs/é']);
const isDirectory = (p: string): boolean => DIRS.has(p);

// [name, input, expected, options]
const CASES: Array<[string, string, string, { ignoreCase?: boolean; dirs?: boolean }?]> = [
  ['plain relative', 'src/a.ts', 'src/a.ts'],
  ['dot slash and double slashes', './src//a.ts', 'src/a.ts'],
  ['inner dot segments', 'src/./a/./b.ts', 'src/a/b.ts'],
  ['dot dot cancels a literal', 'a/../b', 'b'],
  ['dot dot inside a deeper path', 'src/a/../b/*.ts', 'src/b/*.ts'],
  ['absolute inside the root', '/tmp/x/repo/src/a.ts', 'src/a.ts'],
  ['absolute glob inside the root', '/tmp/x/repo/src/**/*.ts', 'src/**/*.ts'],
  ['the root itself', '/tmp/x/repo', '**'],
  ['the root with trailing slash', '/tmp/x/repo/', '**'],
  ['absolute with dot dot back in', '/tmp/x/other/../repo/a', 'a'],
  ['dot means the whole scope', '.', '**'],
  ['dot slash means the whole scope', './', '**'],
  ['trailing slash means the directory', 'src/', 'src/**'],
  ['trailing slash after a glob', 'packages/*/', 'packages/*/**'],
  ['trailing slash after globstar adds nothing', 'src/**/', 'src/**'],
  ['braces then trailing slash', '{a,b}/', '{a,b}/**'],
  ['existing directory widens', 'src', 'src/**', { dirs: true }],
  ['existing nested directory widens', 'src/app', 'src/app/**', { dirs: true }],
  ['a file stays a file', 'src/a.ts', 'src/a.ts', { dirs: true }],
  ['globs are not widened', 'sr*', 'sr*', { dirs: true }],
  ['NFC: decomposed é becomes composed', 'docs/e\u0301.md', 'docs/\u00e9.md'],
  ['NFC applies before the directory check', 'docs/e\u0301', 'docs/\u00e9/**', { dirs: true }],
  ['ignoreCase folds to lower case', 'SRC/App.TS', 'src/app.ts', { ignoreCase: true }],
  ['ignoreCase folds classes', '[A-Z]*.MD', '[a-z]*.md', { ignoreCase: true }],
  ['ignoreCase matches the root case-insensitively', '/TMP/X/REPO/A', 'a', { ignoreCase: true }],
  ['case kept by default', 'README.md', 'README.md'],
  ['needless escapes dropped', '\\a\\b.ts', 'ab.ts'],
  ['needed escapes kept', '\\*.ts', '\\*.ts'],
  ['brackets of Next.js routes', 'app/\\[id\\]/page.tsx', 'app/\\[id\\]/page.tsx'],
  ['parentheses are literal', 'app/(group)/page.tsx', 'app/(group)/page.tsx'],
  ['escaped extglob opener stays escaped', '+\\(a)', '+\\(a)'],
  ['leading escaped bang', '\\!important', '\\!important'],
  ['caret class kept as written', '[^a]', '[!a]'],
  ['a stray ] is a literal', 'a]', 'a\\]'],
  ['comma outside braces is literal', 'a,b', 'a,b'],
  ['brace with slash is kept', '{src/a,lib}/*.ts', '{src/a,lib}/*.ts'],
  ['globstar kept', '**/*.ts', '**/*.ts'],
];

describe('normalizePattern', () => {
  test.each(CASES)('%s: %s → %s', (_name, input, expected, opts) => {
    const result = normalizePattern(input, {
      root: ROOT,
      ignoreCase: opts?.ignoreCase,
      isDirectory: opts?.dirs === true ? isDirectory : undefined,
    });
    expect(result).toBe(expected);
    // Normal forms are fixed points.
    expect(normalizePattern(result, { root: ROOT, ignoreCase: opts?.ignoreCase })).toBe(result);
  });

  test('decomposed and composed spellings normalize to the same pattern', () => {
    expect(normalizePattern('caf\u0065\u0301/*', { root: ROOT })).toBe(normalizePattern('caf\u00e9/*', { root: ROOT }));
  });

  test.each([
    ['dot dot above the root', '../a', 'OUTSIDE_SCOPE'],
    ['absolute elsewhere', '/etc/hosts', 'OUTSIDE_SCOPE'],
    ['absolute parent of the root', '/tmp/x', 'OUTSIDE_SCOPE'],
    ['absolute with a glob in the root part', '/tmp/*/repo/a', 'OUTSIDE_SCOPE'],
    ['dot dot after a wildcard', 'src/*/../a', 'INVALID_PATTERN'],
    ['dot dot after globstar', '**/../a', 'INVALID_PATTERN'],
  ])('%s: %s → %s', (_name, input, code) => {
    expect(() => normalizePattern(input, { root: ROOT })).toThrow(IcError);
    try {
      normalizePattern(input, { root: ROOT });
    } catch (e) {
      expect((e as IcError).code).toBe(code);
    }
  });

  test('refusal messages say what to write instead', () => {
    const message = (p: string): string => {
      try {
        normalizePattern(p, { root: ROOT });
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    };
    expect(message('+(a|b)')).toMatch(/\{a,b\}/);
    expect(message('[[:digit:]]')).toMatch(/POSIX/);
    expect(message('{1..3}')).toMatch(/\{1,2,3\}/);
    expect(message('!a')).toMatch(/negated/);
    expect(message('[a')).toMatch(/\\\[/);
  });
});

// The cwd rule (git reads a pathspec from the current directory): `base` names the directory below the root.
describe('normalizePattern with a base directory', () => {
  const from = (base: string[], input: string): string => normalizePattern(input, { root: ROOT, base });
  test.each([
    [['src', 'api'], 'users.ts', 'src/api/users.ts'],
    [['src', 'api'], '../lib/**', 'src/lib/**'],
    [['src', 'api'], '../../README.md', 'README.md'],
    [['src', 'api'], '.', 'src/api/**'],
    [['src', 'api'], './', 'src/api/**'],
    [['src', 'api'], '..', 'src/**'],
    [['src', 'api'], '*.ts', 'src/api/*.ts'],
    [['src', 'api'], '{a,b}/x', 'src/api/{a,b}/x'],
    [['app', '[id]'], 'page.tsx', 'app/\\[id\\]/page.tsx'],
    [['a*b', 'a\\b'], '*.ts', 'a\\*b/a\\\\b/*.ts'],
    [['{x}'], 'y', '\\{x\\}/y'],
    [['src'], '/tmp/x/repo/docs/a.md', 'docs/a.md'],
    [[], 'a.ts', 'a.ts'],
  ])('from %j, %s → %s', (base, input, expected) => {
    expect(from(base, input)).toBe(expected);
  });

  test('".." past the root is OUTSIDE_SCOPE, from any depth', () => {
    expect(() => from(['src', 'api'], '../../../x')).toThrow(expect.objectContaining({ code: 'OUTSIDE_SCOPE' }));
    expect(() => from([], '../x')).toThrow(expect.objectContaining({ code: 'OUTSIDE_SCOPE' }));
  });

  test('the stored pattern, base included, must fit the complexity limits', () => {
    const deep = Array.from({ length: 70 }, (_, i) => `d${i}`);
    expect(() => from(deep, 'a.ts')).toThrow(expect.objectContaining({ code: 'TOO_COMPLEX' }));
    expect(from(deep, '../'.repeat(10) + 'a.ts')).toBe(`${deep.slice(0, 60).join('/')}/a.ts`);
  });

  test('what is refused is refused from every directory', () => {
    for (const input of ['{a,}/x', '.{a,}', 'x/*/..', '!a']) {
      expect(() => from([], input), input).toThrow(expect.objectContaining({ code: 'INVALID_PATTERN' }));
      expect(() => from(['src'], input), input).toThrow(expect.objectContaining({ code: 'INVALID_PATTERN' }));
    }
  });
});

// Symlinks in the literal part are resolved on segments: escapes survive exactly (issue #11 stored
// `link/\[id\]/page.tsx` as `real/\[id\]/page.tsx/sx`).
describe('normalizePattern with a path resolver', () => {
  const resolvePath = (abs: string): string => abs.replace(/^\/tmp\/x\/repo\/link(?=\/|$)/, '/tmp/x/repo/real').replace(/^\/tmp\/x\/repo\/out(?=\/|$)/, '/elsewhere');
  const resolve = (input: string, base?: string[]): string => normalizePattern(input, { root: ROOT, resolvePath, base });
  test.each([
    ['link/\\[id\\]/page.tsx', 'real/\\[id\\]/page.tsx'],
    ['link/\\[id\\]/*.ts', 'real/\\[id\\]/*.ts'],
    ['link/a\\*b', 'real/a\\*b'],
    ['link/a\\\\b', 'real/a\\\\b'],
    ['link/a\\\\b/*', 'real/a\\\\b/*'],
    ['link/**', 'real/**'],
    ['link', 'real'],
    ['/tmp/x/repo/link/\\[id\\]/*.ts', 'real/\\[id\\]/*.ts'],
    ['*/link/a', '*/link/a'],
  ])('%s → %s', (input, expected) => {
    expect(resolve(input)).toBe(expected);
    expect(resolve(expected)).toBe(expected);
  });

  test('the base directory resolves with the pattern', () => {
    expect(resolve('\\[id\\]/page.tsx', ['link'])).toBe('real/\\[id\\]/page.tsx');
  });

  test('a symlink out of the scope is OUTSIDE_SCOPE and says where it leads', () => {
    expect(() => resolve('out/a.ts')).toThrow(expect.objectContaining({ code: 'OUTSIDE_SCOPE', message: expect.stringContaining('/elsewhere/a.ts') }));
  });

  // A literal's stored form is checked as text, not compiled: one that a symlink made differ from the input
  // is still validated as the stored form.
  test('a literal resolved through a symlink is validated as stored', () => {
    const through = (target: string) => (input: string) => normalizePattern(input, { root: ROOT, resolvePath: (abs) => abs.replace(/^\/tmp\/x\/repo\/link(?=\/|$)/, target) });
    expect(() => through('/tmp/x/repo/bad\u0001name')('link/a.ts')).toThrow(expect.objectContaining({ code: 'INVALID_PATTERN', message: expect.stringContaining('U+0001') }));
    expect(() => through(`/tmp/x/repo/${'d/'.repeat(70)}d`)('link/a.ts')).toThrow(expect.objectContaining({ code: 'TOO_COMPLEX', details: expect.objectContaining({ limit: 'segments' }) }));
    expect(through('/tmp/x/repo/real')('link/a.ts')).toBe('real/a.ts');
  });
});
