import { sqlAsText } from '../support/sql-as-text.mjs';
import { defineConfig } from 'vitest/config';
// @ts-expect-error -- a plain .mjs script without type declarations
import { driverInstalled, libpqDir } from '../../scripts/install-postgres-driver.mjs';
import { CONFORMANCE_FILES, KNOWN_FAILING_FILES, knownFailuresPattern } from './conformance.mjs';

// The PostgreSQL suite (`npm run test:postgres`, docs/postgres.md): its globalSetup starts a throwaway cluster
// (scripts/postgres-server.mjs) and stops it afterwards, whatever the tests did. Not part of `npm test`: it
// needs Debian's postgresql package and the native `libpq` package, which is not in package.json: the npm
// script installs it outside the repository first (scripts/install-postgres-driver.mjs), and the tests, and
// the worker processes they start, find it through IC_LIBPQ_DIR (src/store/postgres/driver.ts).
// Besides test/postgres/, it runs the conformance files of `npm test` on PostgreSQL (test/postgres/conformance.ts).
if (process.env.NODE_EXTRA_CA_CERTS) delete process.env.NODE_EXTRA_CA_CERTS; // see vitest.config.mts

const libpq = process.env.IC_LIBPQ_DIR || libpqDir();
if (!process.env.IC_LIBPQ_DIR && !driverInstalled(libpq))
  throw new Error(`the PostgreSQL driver is not installed at ${libpq}: run \`npm run test:postgres\` (or node scripts/install-postgres-driver.mjs) first`);

const globalSetup = ['test/postgres/global-setup.ts'];
const knownFailures = process.env.IC_TEST_KNOWN_FAILURES === '1'; // run them too: to see whether one passes now

export default defineConfig({
  plugins: [sqlAsText],
  test: {
    root: new URL('../..', import.meta.url).pathname,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The files share one server and the stress tests start many processes: one file at a time keeps the
    // 2-core machine's timings sane.
    fileParallelism: false,
    maxWorkers: 1,
    // The known failures (conformance.mts) show as skipped: a project cannot set this, the names are the conformance files'.
    testNamePattern: knownFailures ? undefined : knownFailuresPattern(),
    projects: [
      // The engine's own tests: they name their databases themselves.
      // Each project starts its own throwaway server (globalSetup runs once per project that names it).
      { extends: true, test: { name: 'postgres', include: ['test/postgres/**/*.test.ts'], globalSetup, env: { IC_LIBPQ_DIR: libpq } } },
      // The connection, the bin's commands and a server restart again through the native libpq (the rest run on
      // ic's built-in driver, which a unix socket or loopback URL gets by default): docs/postgres.md, "Drivers".
      {
        extends: true,
        test: {
          name: 'postgres-libpq',
          include: ['test/postgres/connection.test.ts', 'test/postgres/cli.test.ts', 'test/postgres/restart.test.ts'],
          globalSetup,
          env: { IC_LIBPQ_DIR: libpq, IC_PG_DRIVER: 'libpq' },
        },
      },
      {
        extends: true,
        test: {
          // `npm test`'s files again, every temp repository and store on the suite's server (test/support/engine.ts).
          name: 'conformance',
          globalSetup,
          include: [...CONFORMANCE_FILES],
          exclude: knownFailures ? [] : KNOWN_FAILING_FILES.map((known) => known.file),
          env: { IC_LIBPQ_DIR: libpq, IC_TEST_ENGINE: 'postgres' },
        },
      },
    ],
  },
});
