import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRegularFile } from '../../src/store/regular-file';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readRegularFile', () => {
  it('reads a file whole, or its last bytes when asked for a tail shorter than it', () => {
    dir = mkdtempSync(join(tmpdir(), 'ic-regular-'));
    const file = join(dir, 'transcript.jsonl');
    writeFileSync(file, 'first line\nsecond line\n');
    expect(readRegularFile(file)).toBe('first line\nsecond line\n');
    expect(readRegularFile(file, 100)).toBe('first line\nsecond line\n');
    expect(readRegularFile(file, 12)).toBe('second line\n');
  });

  it('gives nothing for what is not a regular file, without waiting on a FIFO that has no writer', () => {
    dir = mkdtempSync(join(tmpdir(), 'ic-regular-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    expect(readRegularFile(fifo, 12)).toBeUndefined();
    expect(readRegularFile(dir)).toBeUndefined();
    expect(readRegularFile(join(dir, 'missing'))).toBeUndefined();
  });
});
