import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(__dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('README.md', () => {
  it('is at most 25 KB: a newcomer reads it; the reference lives in docs/', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(25 * 1024);
  });

  it('starts with the two commands from a clone (install and run the main job; the tests)', () => {
    const first = /^# .*\n\n```sh\n(.*)\n(.*)\n```/.exec(readme);
    expect(first?.[1]).toBe("npm ci && npm run build && IC_OWNER=me ./bin/coord reserve 'src/**' && ./bin/coord list --active");
    expect(first?.[2]).toBe('npm test');
  });

  it('says one way to install, and nothing test-only', () => {
    expect(readme.match(/npm install -g [^\n]*/g)?.filter((line) => !line.includes('--allow-scripts=better-sqlite3'))).toEqual([]);
    for (const name of ['IC_NOW', 'IC_TEST_CLOCK', 'IC_MOUNTINFO', 'IC_CODE_CACHE', 'IC_TIMING']) expect(readme, name).not.toContain(name);
  });

  it('links only to files that exist', () => {
    for (const [, target] of readme.matchAll(/\]\(([^)#]+)(#[^)]*)?\)/g)) if (!/^https?:/.test(target!)) expect(() => statSync(join(ROOT, target!)), target).not.toThrow();
  });
});
