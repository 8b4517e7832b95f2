import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The project's rule: no Node internals (process.binding, internalBinding), so that a Node release cannot break
// ic. One exception, named here and in docs/performance.md ("Start-up tricks"): the hook's stdin, when it is a
// socket, is made non-blocking through Node's pipe handle, because no public API does that without loading
// node:net into every hook, and a read left blocked in libuv's thread pool keeps the process from exiting.
const ROOT = resolve(__dirname, '../..');
const EXCEPTIONS: Record<string, string[]> = { 'src/hooks/stdin.ts': ["binding('pipe_wrap')"] };

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('no Node internals', () => {
  it('nothing in src/ or bin/ calls process.binding or internalBinding (however it is cast), but the one exception', () => {
    const found = [...files(join(ROOT, 'src')), ...files(join(ROOT, 'bin'))].flatMap((file) => {
      const name = relative(ROOT, file);
      let text = readFileSync(file, 'utf8');
      for (const allowed of EXCEPTIONS[name] ?? []) text = text.replace(allowed, '');
      return /\.\s*binding\s*\(|\binternalBinding\b/.test(text) ? [name] : [];
    });
    expect(found).toEqual([]);
  });

  it('the exception is still there to be excused (remove it from this test when it goes)', () => {
    for (const [name, uses] of Object.entries(EXCEPTIONS)) for (const use of uses) expect(readFileSync(join(ROOT, name), 'utf8')).toContain(use);
  });
});
