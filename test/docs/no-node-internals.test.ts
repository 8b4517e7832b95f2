import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The project's rule: no Node internals (process.binding, internalBinding), so that a Node release cannot break
// ic. No exception (the last one, the hook's socket stdin through Node's pipe handle, went in 0.4).
const ROOT = resolve(__dirname, '../..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('no Node internals', () => {
  it('nothing in src/, bin/ or scripts/ calls process.binding or internalBinding (however it is cast)', () => {
    const found = ['src', 'bin', 'scripts']
      .flatMap((dir) => files(join(ROOT, dir)))
      .flatMap((file) => (/\.\s*binding\s*\(|\binternalBinding\b|\bpipe_wrap\b|\btcp_wrap\b/.test(readFileSync(file, 'utf8')) ? [relative(ROOT, file)] : []));
    expect(found).toEqual([]);
  });
});
