import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IC_BIN, REPO_ROOT } from './cli';

// What a built ic needs at run time: its launchers, bundles, hook templates, and the native SQLite driver.
const RUNTIME = [
  'package.json',
  'bin',
  'dist',
  'scripts',
  'schema',
  'node_modules/better-sqlite3/package.json',
  'node_modules/better-sqlite3/lib',
  'node_modules/better-sqlite3/build/Release/better_sqlite3.node',
  'node_modules/bindings',
  'node_modules/file-uri-to-path',
];

function canRun(uid: number, file: string): boolean {
  return spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', 'test', '-x', file], { stdio: 'ignore' }).status === 0;
}

// A bin/ic that user `uid` can run. The clone's own when that user can reach it; else (a clone inside a
// 0700 directory, a home that is 0750) a copy of what ic needs at run time in a world-readable temp dir.
export function icBinFor(uid: number): { bin: string; cleanup: () => void } {
  if (canRun(uid, IC_BIN)) return { bin: IC_BIN, cleanup: () => {} };
  const dir = mkdtempSync(join(tmpdir(), 'ic-reachable-'));
  chmodSync(dir, 0o755);
  for (const path of RUNTIME) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    cpSync(join(REPO_ROOT, path), join(dir, path), { recursive: true });
  }
  spawnSync('chmod', ['-R', 'a+rX', dir]);
  return { bin: join(dir, 'bin', 'ic'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
