'use strict';
// Writes the V8 code caches of dist/ (the loader in bin/ic writes a bundle's cache at the exit of the first process
// that had none, with the functions that process compiled). One process per bundle runs its hot paths, so
// the cache holds them all: an edit hook, a shell command's hooks the fast way (which loads the glob matcher and
// the shell reader), and a reserve through the CLI.
const { execFileSync } = require('node:child_process');
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const root = join(__dirname, '..');
const dist = join(root, 'dist');
const ic = join(root, 'bin', 'ic');

if (process.argv[2] === 'child') {
  // Inside one warm-up process: argv[3] is the bundle, argv[4] the repository, argv[5] the owner another agent is.
  const [bundle, repo] = process.argv.slice(3);
  const load = require(join(root, 'bin', 'load.js'));
  const exports = load.loadBundle(join(dist, bundle));
  const shell = (event, id, command = 'npm test') =>
    JSON.stringify({ session_id: 'warm-up', cwd: repo, hook_event_name: event, tool_name: 'Bash', tool_input: { command }, tool_use_id: id, duration_ms: 1 });
  if (bundle === 'hook.cjs') {
    const edit = JSON.stringify({ session_id: 'warm-up', cwd: repo, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: join(repo, 'a.ts') }, tool_use_id: 'e' });
    // The edit hook only, a new lock then its renewal (one after another: they share one connection, as a real
    // hook's steps do). V8 deserializes all a cache holds at every start: the shell hooks' full way in it too cost
    // each edit hook ~1.7 ms of CPU, and left out it cost the full way nothing measurable (docs/performance.md).
    const hooks = [
      ['claude-pre-edit', edit],
      ['claude-pre-edit', edit],
    ];
    hooks.reduce((previous, [name, text]) => previous.then(() => exports.runWithInput(['coord', 'hook', name], { text })), Promise.resolve()).then(() => void (process.exitCode = 0));
    return;
  } else {
    exports.fastShellHook('claude-pre-shell', shell('PreToolUse', 's2'), process.env, repo);
    exports.fastShellHook('claude-post-tool', shell('PostToolUse', 's2'), process.env, repo);
    // A command the quick scan cannot clear: the fast path loads the shell reader (dist/shell.cjs) too.
    exports.fastShellHook('claude-pre-shell', shell('PreToolUse', 's3', 'sed -n 1p held.ts'), process.env, repo);
    exports.fastShellHook('claude-post-tool', shell('PostToolUse', 's3', 'sed -n 1p held.ts'), process.env, repo);
  }
  process.exitCode = 0;
  return;
}

const repo = mkdtempSync(join(tmpdir(), 'ic-warm-'));
try {
  const env = { ...process.env, IC_OWNER: '', IC_DB: '', GIT_CONFIG_NOSYSTEM: '1' };
  delete env.IC_DB;
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(join(repo, 'held.ts'), 'held\n');
  mkdirSync(join(repo, 'src'));
  writeFileSync(join(repo, 'src', 'a.ts'), 'under a held glob\n'); // so the fast path loads the glob matcher too
  execFileSync(process.execPath, [ic, 'coord', 'reserve', 'held.ts', 'src/**'], { cwd: repo, env: { ...env, IC_OWNER: 'another-agent' }, stdio: 'ignore' });
  for (const bundle of ['hook.cjs', 'fast.cjs']) execFileSync(process.execPath, [__filename, 'child', bundle, repo], { cwd: repo, env, stdio: 'ignore' });
  execFileSync(process.execPath, [ic, 'coord', 'reserve', 'b.ts'], { cwd: repo, env: { ...env, IC_OWNER: 'warm-up' }, stdio: 'ignore' }); // the full CLI
} finally {
  rmSync(repo, { recursive: true, force: true });
}
