// Shared by `npm run stress` and `npm run crash`: load a TypeScript harness from test/reliability, and
// run the code under test from a private copy of bin/ and dist/.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoPath = (path) => join(root, path);

// The harness is TypeScript shared with npm test: bundle it next to node_modules so better-sqlite3 resolves.
// One file per process: a second run beside this one (another clone or worktree sharing node_modules) never
// loads a bundle this one is writing.
export async function loadHarness(entry) {
  const outfile = repoPath(`node_modules/.cache/ic-reliability/${entry.replace(/\W+/g, '-')}-${process.pid}.cjs`);
  process.on('exit', () => rmSync(outfile, { force: true }));
  await build({ entryPoints: [repoPath(entry)], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['better-sqlite3'], logLevel: 'warning' });
  return createRequire(import.meta.url)(outfile);
}

// A long run must test one build: others may rebuild dist/ meanwhile, so run a private copy of it.
export function snapshotBin() {
  const dir = repoPath(`node_modules/.cache/ic-reliability/bin-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  cpSync(repoPath('bin'), join(dir, 'bin'), { recursive: true });
  cpSync(repoPath('dist'), join(dir, 'dist'), { recursive: true });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'bin/ic');
}
