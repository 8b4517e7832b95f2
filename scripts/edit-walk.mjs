// The edit walk (issue #35): how far a Claude edit travels through src/ and how often it climbs back up a layer.
//
//   node scripts/edit-walk.mjs [--from reserveEdit|runHook] [--json]
//
// How it is measured (docs/design/architecture.md, "The edit walk"): src/ is transpiled file by file (no bundle) into
// a temp directory, and every src module's exported functions are wrapped as they are imported. A temp git
// repository gets one `claude-pre-edit` hook call (it creates the database), then, in a fresh process, the
// call that is measured: an Edit of another file, with the session already known. At each call of a wrapped
// function inside the entry function (`--from`, default reserveEdit in src/hooks/edit.ts), the JavaScript
// stack is read: every src file on it at or below the entry's frame is *visited*, and every two adjacent
// frames of different files are a *call* from the outer file to the inner one. A call is a *climb* when the
// inner file's layer is above the outer one's (core < store < coord < hooks < cli; src/*.ts below core).
// Counted: distinct files visited, and distinct (caller file, callee file) climbs. A callback a lower layer
// calls is seen when it calls any src module's function (then its frame is on the stack).
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const args = process.argv.slice(2);
const from = args.includes('--from') ? args[args.indexOf('--from') + 1] : 'reserveEdit';
const ENTRIES = { reserveEdit: 'hooks/edit', runHook: 'hooks/run' };
if (!ENTRIES[from]) throw new Error(`--from: one of ${Object.keys(ENTRIES).join(', ')}`);

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'ic-edit-walk-'));
  try {
    const out = join(work, 'out');
    await build({
      entryPoints: sources(join(root, 'src')),
      outdir: join(out, 'src'),
      outbase: join(root, 'src'),
      bundle: false,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      logLevel: 'warning',
    });
    symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'));
    symlinkSync(join(root, 'schema'), join(out, 'schema'));
    const tracer = join(work, 'tracer.cjs');
    writeFileSync(tracer, TRACER);
    const repo = join(work, 'repo');
    mkdirSync(repo);
    const git = (...a) => execFileSync('git', a, { cwd: repo, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(join(repo, 'a.ts'), 'a\n');
    writeFileSync(join(repo, 'b.ts'), 'b\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init');
    const env = { ...process.env, CLAUDE_PROJECT_DIR: repo, IC_WALK_SRC: join(out, 'src'), IC_WALK_ENTRY: `${ENTRIES[from]}.js:${from}` };
    for (const key of ['IC_DB', 'IC_TIMING', 'NODE_OPTIONS']) delete env[key];
    const edit = (file) =>
      JSON.stringify({
        session_id: 'walk',
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_use_id: `t-${file}`,
        cwd: repo,
        tool_input: { file_path: join(repo, file), old_string: 'x', new_string: 'y' },
      });
    const call = (file, traced) => {
      const run = spawnSync(process.execPath, [...(traced ? ['--require', tracer] : []), '-e', DRIVER], { cwd: repo, env: { ...env, IC_WALK_INPUT: edit(file) }, encoding: 'utf8' });
      if (run.status !== 0 || /deny|ic:/.test(run.stdout)) throw new Error(`the hook did not allow the edit: ${run.status} ${run.stdout} ${run.stderr}`);
      return run.stderr;
    };
    call('a.ts', false);
    const walk = JSON.parse(
      call('b.ts', true)
        .split('\n')
        .find((line) => line.startsWith('{"walk"')),
    ).walk;
    if (args.includes('--json')) console.log(JSON.stringify(walk, null, 2));
    else {
      console.log(`from ${from}: ${walk.files.length} files visited, ${walk.climbs.length} climbs`);
      console.log(`files: ${walk.files.join(' ')}`);
      for (const climb of walk.climbs) console.log(`climb: ${climb}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

// The measured call, as bin/ic's hook bundle makes it (src/cli/hook-call.ts), on the transpiled src/.
const DRIVER = `
const src = process.env.IC_WALK_SRC;
require.extensions['.sql'] = (module, filename) => { module.exports = { __esModule: true, default: require('fs').readFileSync(filename, 'utf8') }; };
const { runHookCall } = require(src + '/cli/hook-call.js');
runHookCall('claude-pre-edit', { text: process.env.IC_WALK_INPUT });
`;

const TRACER = `
const Module = require('module');
const fs = require('fs');
const path = require('path');
const src = process.env.IC_WALK_SRC + path.sep;
const [entryFile, entryName] = process.env.IC_WALK_ENTRY.split(':');
const LAYERS = ['core', 'store', 'coord', 'hooks', 'cli'];
const layer = (file) => (file.includes('/') ? LAYERS.indexOf(file.split('/')[0]) + 1 : 0);
const files = new Set();
const calls = new Set();
let depth = 0;
function frames() {
  const prepare = Error.prepareStackTrace;
  const limit = Error.stackTraceLimit;
  Error.prepareStackTrace = (_, sites) => sites;
  Error.stackTraceLimit = Infinity;
  const sites = new Error().stack;
  Error.prepareStackTrace = prepare;
  Error.stackTraceLimit = limit;
  const out = [];
  for (const site of sites) {
    const name = site.getFileName();
    if (!name || !name.startsWith(src)) continue;
    const file = path.relative(src, name).replace(/\\.js$/, '');
    out.push(file);
    if (file + '.js' === entryFile && site.getFunctionName() === entryName) return out;
  }
  return null;
}
function record(callee) {
  const chain = frames();
  if (chain === null) return;
  chain.unshift(callee);
  for (let i = 0; i < chain.length; i++) {
    files.add(chain[i]);
    if (i > 0 && chain[i] !== chain[i - 1]) calls.add(chain[i] + ' -> ' + chain[i - 1]);
  }
}
const wrapped = new WeakMap();
function wrap(fn, file) {
  if (wrapped.has(fn)) return wrapped.get(fn);
  const w = function (...a) {
    if (depth > 0) record(file);
    return new.target ? Reflect.construct(fn, a, new.target) : fn.apply(this, a);
  };
  const entry = file + '.js' === entryFile && fn.name === entryName;
  const outer = entry
    ? function (...a) { depth++; files.add(file); try { return w.apply(this, a); } finally { depth--; } }
    : w;
  Object.setPrototypeOf(outer, fn);
  outer.prototype = fn.prototype;
  wrapped.set(fn, outer);
  return outer;
}
const proxies = new Map();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const exports = load.apply(this, arguments);
  let filename;
  try { filename = Module._resolveFilename(request, parent, isMain); } catch { return exports; }
  if (!filename.startsWith(src) || !filename.endsWith('.js') || typeof exports !== 'object') return exports;
  const file = path.relative(src, filename).replace(/\\.js$/, '');
  if (!proxies.has(filename)) proxies.set(filename, new Proxy(exports, { get: (t, k) => { const v = Reflect.get(t, k); return typeof v === 'function' ? wrap(v, file) : v; } }));
  return proxies.get(filename);
};
process.on('exit', () => {
  const climbs = [...calls].filter((c) => { const [a, b] = c.split(' -> '); return layer(b) > layer(a); }).sort();
  process.stderr.write(JSON.stringify({ walk: { files: [...files].sort(), calls: [...calls].sort(), climbs } }) + '\\n');
});
`;

await main();
