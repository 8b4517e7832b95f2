// Bundles src/ into one CommonJS file that bin/ic loads: one file to read at start-up is faster than hundreds.
import { build } from 'esbuild';

const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // better-sqlite3's JavaScript is bundled (so the code cache covers it too); its native addon is loaded
  // by path (src/store/driver.ts), and `bindings`, which would search for it, is never called.
  external: ['bindings', 'better-sqlite3/package.json'],
  sourcemap: 'linked',
  logLevel: 'warning',
  loader: { '.sql': 'text' },
};

await Promise.all([
  build({ ...shared, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/ic.cjs' }),
  // The programmatic API, for benchmarks and fuzzers that drive the use cases in-process.
  build({ ...shared, entryPoints: ['src/api.ts'], outfile: 'dist/api.cjs' }),
]);

// A fresh V8 code cache for bin/load.js, made by one representative hook call (the hot path), so the
// first real call after a build is already fast. A stale cache from an older bundle is removed first.
import { readdirSync, rmSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

for (const name of readdirSync('dist')) if (name.endsWith('.cache')) rmSync(join('dist', name));
const warm = mkdtempSync(join(tmpdir(), 'ic-warm-'));
const payload = JSON.stringify({ session_id: 'warm-up', cwd: warm, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(warm, 'a.ts') } });
spawnSync(process.execPath, [join(process.cwd(), 'bin', 'ic'), 'coord', 'hook', 'claude-pre-edit'], { input: payload, cwd: warm, env: { ...process.env, IC_DB: join(warm, 'ic.db') }, stdio: ['pipe', 'ignore', 'ignore'] });
rmSync(warm, { recursive: true, force: true });
