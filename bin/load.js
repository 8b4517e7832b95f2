'use strict';
// Loads a bundle from dist/ through a V8 code cache kept beside it, so a short-lived call (a hook on
// every edit) skips most of the JavaScript compilation. Any problem with the cache falls back to a plain
// require. A bare `coord hook NAME` gets the small hook bundle; everything else the full CLI.
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const Module = require('module');

// No list of hook names here (src/hooks/run.ts has the one list): the hook bundle hands any name it
// does not know to the full CLI, which answers it.
// The exception: a shell command's before and after hooks start in a smaller bundle still, which answers
// without SQLite when it can and hands over to hook.cjs otherwise (src/hooks/fast/).
const FAST_HOOKS = ['claude-pre-shell', 'codex-pre-shell', 'claude-post-tool', 'codex-post-tool'];

function bundleFor(argv) {
  const bareHook = argv.length === 3 && (argv[0] === 'coordination' || argv[0] === 'coord') && argv[1] === 'hook' && /^[a-z]+(-[a-z]+)+$/.test(argv[2]);
  const dist = path.join(__dirname, '..', 'dist');
  if (bareHook && FAST_HOOKS.includes(argv[2])) return path.join(dist, 'fast.cjs');
  return path.join(dist, bareHook ? 'hook.cjs' : 'ic.cjs');
}

// A bundle whose run did not reach its hot path says so here (dist/fast.cjs handing a call to hook.cjs): a
// cache written then would lack the functions that matter, and it is never written again.
const PARTIAL_RUN = Symbol.for('ic.code-cache.partial-run');

function loadWithCache(bundle) {
  const cacheFile = `${bundle}.${process.version}-${process.arch}.cache`;
  const source = fs.readFileSync(bundle, 'utf8');
  let cachedData;
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
  const module = { exports: {}, filename: bundle, id: bundle };
  script.runInThisContext().call(module.exports, module.exports, Module.createRequire(bundle), module, bundle, path.dirname(bundle));
  if (cachedData === undefined || script.cachedDataRejected) process.once('exit', () => globalThis[PARTIAL_RUN] !== bundle && writeCache(script, cacheFile));
  return module.exports;
}

// Written at exit, so the functions this run compiled are in it; tmp + rename keeps racing writers whole.
function writeCache(script, cacheFile) {
  try {
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, script.createCachedData());
    fs.renameSync(tmp, cacheFile);
  } catch {
    // a read-only install simply runs without a cache
  }
}

// A clone after `npm ci` has no dist/ until `npm run build` (nothing builds on install: a packed tarball
// ships dist/). Checked only once a load has failed, so a normal call pays nothing for it.
function exitIfNotBuilt(bundle) {
  if (fs.existsSync(bundle)) return;
  fs.writeSync(2, `ic: ${bundle} is missing: run \`npm run build\` in ${path.join(__dirname, '..')} first\n`);
  process.exit(70);
}

module.exports = function load(argv) {
  return loadFrom(bundleFor(argv));
};

function loadFrom(bundle) {
  const plain = process.env.IC_CODE_CACHE === '0';
  try {
    return plain ? require(bundle) : loadWithCache(bundle);
  } catch (error) {
    // A build from before the fast path has no fast.cjs: the hook runs in hook.cjs, as it always did.
    if (error && error.code === 'ENOENT' && path.basename(bundle) === 'fast.cjs') return loadFrom(path.join(path.dirname(bundle), 'hook.cjs'));
    exitIfNotBuilt(bundle);
    if (plain || (error && error.code === 'ENOENT')) throw error;
    return require(bundle);
  }
}

// For dist/fast.cjs, which hands a call it cannot answer to dist/hook.cjs: loaded through the same code cache.
module.exports.loadBundle = function loadBundle(bundle) {
  try {
    return process.env.IC_CODE_CACHE === '0' ? require(bundle) : loadWithCache(bundle);
  } catch (error) {
    if (error && error.code === 'ENOENT') throw error;
    return require(bundle);
  }
};
