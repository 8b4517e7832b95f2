// A git that never answers is killed with everything it started when the hook's deadline runs out
// (src/store/git/git-process.ts). In-process, with a budget wide enough that the hanging git surely starts and
// records itself even on a loaded machine: test/hardening/hook-deadline.test.ts runs the same through the bin.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { isDeadlineExceeded, startDeadline } from '../../src/store/deadline';
import { runGit } from '../../src/store/git/git-process';
import { survivors } from '../support/killed';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ic-git-process-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('a git that hangs past the deadline is killed with the process it started, and the step is named', () => {
  const bin = join(dir, 'bin');
  const pids = join(dir, 'pids');
  mkdirSync(bin);
  writeFileSync(join(bin, 'git'), `#!/bin/bash\necho $$ >> '${pids}'\nsleep 600 &\necho $! >> '${pids}'\nwait\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const deadline = startDeadline(3_000, { now: Date.now, elapsedMs: 0 }); // 2.4 s for the step
  let error: unknown;
  try {
    runGit(['status', '--porcelain'], { cwd: dir, env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } }, deadline);
  } catch (thrown) {
    error = thrown;
  }
  expect(isDeadlineExceeded(error)).toBe(true);
  expect((error as Error).message).toBe("git status did not finish within the hook's budget (IC_HOOK_TIMEOUT=3s)");
  const started = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
  expect(started).toHaveLength(2); // git, and the sleep it started
  expect(survivors(started)).toEqual([]);
});
