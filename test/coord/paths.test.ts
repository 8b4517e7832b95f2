// Pattern canonicalisation against a real file system: the cwd rule for command-line patterns, `:/`,
// absolute paths, and symlinks resolved without disturbing escapes (issue #11).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { canonicalFilePattern, commandLinePattern, directoryInScope } from '../../src/coord/paths';

let root: string;
let outside: string;
let ctx: { scope: string; ignoreCase: boolean };

beforeAll(() => {
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'ic-paths-out-')));
  root = realpathSync(mkdtempSync(join(tmpdir(), 'ic-paths-')));
  for (const dir of ['src/api', 'src/lib', 'real/[id]', 'real/a*b', 'real/a\\b', 'app/[id]']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'real/[id]/page.tsx'), '');
  symlinkSync(join(root, 'real'), join(root, 'link'));
  symlinkSync(join(root, 'src/api'), join(root, 'api-link'));
  symlinkSync(outside, join(root, 'out'));
  ctx = { scope: root, ignoreCase: false };
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const code = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
};

describe('symlinks with escaped names', () => {
  test.each([
    ['link/\\[id\\]/page.tsx', 'real/\\[id\\]/page.tsx'],
    ['link/\\[id\\]/*.ts', 'real/\\[id\\]/*.ts'],
    ['link/a\\*b/x', 'real/a\\*b/x'],
    ['link/a\\\\b/x', 'real/a\\\\b/x'],
    ['link/a\\*b', 'real/a\\*b/**'],
    ['link', 'real/**'],
  ])('%s is stored as %s, as its target is', (input, expected) => {
    expect(canonicalFilePattern(ctx, input)).toBe(expected);
    expect(canonicalFilePattern(ctx, expected)).toBe(expected);
  });

  test('a symlink leading out of the scope is OUTSIDE_SCOPE', () => {
    expect(code(() => canonicalFilePattern(ctx, 'out/a.ts'))).toBe('OUTSIDE_SCOPE');
  });
});

describe('command-line patterns are read from the current directory', () => {
  test.each([
    ['src/api', 'users.ts', 'src/api/users.ts'],
    ['src/api', '../lib/**', 'src/lib/**'],
    ['src/api', '.', 'src/api/**'],
    ['src/api', ':/users.ts', 'users.ts'],
    ['src/api', ':/', '**'],
    ['src/api', ':/src/**', 'src/**'],
    ['app/[id]', 'page.tsx', 'app/\\[id\\]/page.tsx'],
    ['app/[id]', '*.tsx', 'app/\\[id\\]/*.tsx'],
    ['link/[id]', 'page.tsx', 'real/\\[id\\]/page.tsx'],
    ['api-link', 'users.ts', 'src/api/users.ts'],
    ['', 'users.ts', 'users.ts'],
  ])('from %s, %s → %s', (dir, input, expected) => {
    expect(commandLinePattern(ctx, join(root, dir), input)).toBe(expected);
  });

  test('absolute paths inside the scope are accepted from anywhere, also through a symlink', () => {
    expect(commandLinePattern(ctx, join(root, 'src/api'), join(root, 'src/lib/x.ts'))).toBe('src/lib/x.ts');
    expect(commandLinePattern(ctx, outside, join(root, 'link/\\[id\\]/page.tsx'))).toBe('real/\\[id\\]/page.tsx');
  });

  test('a current directory outside the scope leaves relative patterns root-relative', () => {
    expect(directoryInScope(root, outside)).toBeUndefined();
    expect(commandLinePattern(ctx, outside, 'src/a.ts')).toBe('src/a.ts');
  });

  test('a directory named like "..x" is inside the scope', () => {
    mkdirSync(join(root, '..x'), { recursive: true });
    expect(directoryInScope(root, join(root, '..x'))).toEqual(['..x']);
  });

  test('".." past the root is OUTSIDE_SCOPE; other pathspec magic is refused', () => {
    expect(code(() => commandLinePattern(ctx, join(root, 'src/api'), '../../../x'))).toBe('OUTSIDE_SCOPE');
    expect(code(() => commandLinePattern(ctx, join(root, 'src'), join(outside, 'x')))).toBe('OUTSIDE_SCOPE');
    for (const magic of [':!x', ':^x', ':(top)x'])
      expect(
        code(() => commandLinePattern(ctx, root, magic)),
        magic,
      ).toBe('INVALID_PATTERN');
    expect(commandLinePattern(ctx, root, './:x')).toBe(':x');
  });
});
