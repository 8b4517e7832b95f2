#!/usr/bin/env node
// Installs the PostgreSQL driver (the native `libpq` package, pinned) for `npm run test:postgres`, into a cache
// outside the repository ($IC_POSTGRES_DRIVER_CACHE, else ~/.cache/ic-postgres-driver/<version>), the way
// scripts/install-clients.mjs installs the real agent clients. It is not in package.json: it compiles with
// node-gyp against libpq's headers (Debian's libpq-dev), and no command uses PostgreSQL yet, so `npm ci`
// must not need them (docs/postgres.md). A version already built there is reused.
//
//   node scripts/install-postgres-driver.mjs     installs when missing, then prints the package's directory
//
// test/postgres/vitest.config.mts imports libpqDir() and hands it to the tests as IC_LIBPQ_DIR.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const LIBPQ_VERSION = '1.11.0';

export function driverPrefix() {
  const cache = process.env.IC_POSTGRES_DRIVER_CACHE || join(homedir(), '.cache', 'ic-postgres-driver');
  return join(cache, LIBPQ_VERSION);
}

// The package's own directory: what IC_LIBPQ_DIR names (src/store/postgres/driver.ts).
export function libpqDir() {
  return join(driverPrefix(), 'node_modules', 'libpq');
}

// Installed means the pinned version with its compiled addon (a failed build leaves none).
export function driverInstalled(dir = libpqDir()) {
  const manifest = join(dir, 'package.json');
  return existsSync(manifest) && JSON.parse(readFileSync(manifest, 'utf8')).version === LIBPQ_VERSION && existsSync(join(dir, 'build', 'Release', 'addon.node'));
}

export function installDriver() {
  const prefix = driverPrefix();
  if (driverInstalled()) {
    console.log(`libpq@${LIBPQ_VERSION}: cached in ${prefix}`);
    return libpqDir();
  }
  console.log(`libpq@${LIBPQ_VERSION}: installing into ${prefix} (compiles against libpq's headers: Debian's libpq-dev)`);
  mkdirSync(prefix, { recursive: true });
  // A manifest of its own that allows libpq's install script (node-gyp), so npm 11 does not warn about it.
  writeFileSync(join(prefix, 'package.json'), `${JSON.stringify({ private: true, dependencies: { libpq: LIBPQ_VERSION }, allowScripts: { libpq: true } }, null, 2)}\n`);
  // Native addons build against the Node.js headers installed with Node (no header download: no network), as in .ci/run.
  const env = { ...process.env };
  if (!env.npm_config_nodedir && existsSync('/usr/include/node/node.h')) env.npm_config_nodedir = '/usr';
  try {
    execFileSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    throw new Error(`could not install libpq@${LIBPQ_VERSION} into ${prefix} (see npm's output above; it needs libpq's headers: Debian's libpq-dev)`);
  }
  if (!driverInstalled()) throw new Error(`libpq@${LIBPQ_VERSION} was installed into ${prefix} but its addon was not built`);
  return libpqDir();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    console.log(installDriver());
  } catch (error) {
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
}
