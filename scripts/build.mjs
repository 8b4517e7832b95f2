// Bundles src/ into one CommonJS file that bin/ic loads: one file to read at start-up is faster than hundreds.
import { build } from 'esbuild';

// pg's modules that load Node's crypto and dns at load, for what only some connections use: replaced by ones
// that load them at first use (src/store/postgres/driver/lazy-*.ts). pg itself is not changed.
const lazyPgModules = {
  name: 'lazy-pg-modules',
  setup(builder) {
    const root = new URL('..', import.meta.url).pathname;
    builder.onResolve({ filter: /^\.\/(crypto\/)?utils$/ }, (args) =>
      /node_modules\/pg\/lib\/(crypto\/sasl|client)\.js$/.test(args.importer) && (args.path === './crypto/utils' || args.importer.endsWith('sasl.js'))
        ? { path: `${root}src/store/postgres/driver/lazy-crypto.ts` }
        : undefined,
    );
    builder.onResolve({ filter: /^dns$/ }, (args) => (/node_modules\/pg\/lib\/connection-parameters\.js$/.test(args.importer) ? { path: `${root}src/store/postgres/driver/lazy-dns.ts` } : undefined));
  },
};

const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // better-sqlite3's JavaScript is bundled (so the code cache covers it too); its native addon is loaded
  // by path (src/store/driver.ts), and `bindings`, which would search for it, is never called.
  // pg-native and pg-cloudflare are optional modules node-postgres requires only when asked for.
  external: ['bindings', 'better-sqlite3/package.json', 'pg-native', 'pg-cloudflare'],
  sourcemap: 'linked',
  logLevel: 'warning',
  loader: { '.sql': 'text' },
  // pg asks `typeof Response === 'function'` at load to detect Cloudflare Workers: on Node 20 that global
  // is a getter loading Node's whole fetch implementation (undici), which cost a call ~2x `node -e 0`.
  // Node is never Cloudflare: the question is answered at build time (nothing of ic's uses Response).
  define: { Response: 'undefined' },
  plugins: [lazyPgModules],
};

await Promise.all([
  build({ ...shared, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/ic.cjs' }),
  // Only what a bare `coord hook NAME` needs: the call on every agent edit loads a third of the code.
  // Names not kept (no keepNames): nothing reads a function's name, and its call per function cost every
  // hook ~1.4 ms of start-up (measured); a stack trace maps back through dist/hook.cjs.map.
  build({ ...shared, minify: true, entryPoints: ['src/cli/hook-main.ts'], outfile: 'dist/hook.cjs', external: [...shared.external, './ic.cjs'] }),
  // A shell command's before and after hooks (src/hooks/fast/): answered without SQLite when nothing held is at stake.
  // Names not kept: the fast path prints no error of its own (anything unexpected goes the long way), and
  // keepNames' call per function (and its bytes, 6%) cost every shell command's two hooks start-up time.
  build({ ...shared, minify: true, entryPoints: ['src/hooks/fast/entry.ts'], outfile: 'dist/fast.cjs', metafile: true }).then(reportFastInputs),
  // The glob matcher on its own, which the fast path loads only when a glob is held.
  build({ ...shared, minify: true, entryPoints: ['src/core/glob/match.ts'], outfile: 'dist/glob.cjs' }),
  // The shell reader on its own, which the fast path loads only for a command that may name a file it writes.
  build({ ...shared, minify: true, entryPoints: ['src/core/shell/index.ts'], outfile: 'dist/shell.cjs' }),
  // node-postgres on its own (src/store/postgres/session.ts loads it through bin/ic's loader at a server's first
  // connection): the hook bundle a SQLite call loads does not carry it.
  build({ ...shared, minify: true, entryPoints: ['node_modules/pg/lib/index.js'], outfile: 'dist/pg.cjs' }),
  // The programmatic API, for benchmarks and fuzzers that drive the use cases in-process.
  build({ ...shared, entryPoints: ['src/api.ts'], outfile: 'dist/api.cjs' }),
]);

// The fast path must stay small: a build that pulls in SQLite, the shell reader or the glob matcher (each
// loaded only when needed, from a bundle of its own) fails.
function reportFastInputs(result) {
  const inputs = Object.keys(result.metafile.inputs);
  const heavy = inputs.filter((input) => /better-sqlite3|src\/store\/(driver|open)\.ts|src\/core\/shell\/(lex|verbs)\.ts|src\/core\/glob\/match\.ts/.test(input));
  if (heavy.length > 0) throw new Error(`dist/fast.cjs must not include ${heavy.join(', ')}`);
}

// Fresh V8 code caches for the loader in bin/ic, made by warm-up processes that run the hot paths (scripts/warm-caches.cjs),
// so the first real calls after a build are already fast. A stale cache from an older bundle is removed first.
import { readdirSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

for (const name of readdirSync('dist')) if (name.endsWith('.cache')) rmSync(join('dist', name));
const warmed = spawnSync(process.execPath, [join('scripts', 'warm-caches.cjs')], { stdio: ['ignore', 'ignore', 'inherit'] });
if (warmed.status !== 0) console.warn('warning: the code caches were not warmed; the first calls compile them');
