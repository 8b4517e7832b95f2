import { sqlAsText } from '../support/sql-as-text.mjs';
import { defineConfig } from 'vitest/config';
import { CONFORMANCE_FILES, KNOWN_FAILING_FILES, knownFailuresPattern } from './conformance.mjs';

// The PostgreSQL suite (`npm run test:postgres`, docs/postgres.md): its globalSetup starts a throwaway cluster
// (scripts/postgres-server.mjs) and stops it afterwards, whatever the tests did. Not part of `npm test`: it
// needs Debian's postgresql package (and pgbouncer for the pooler's test), and a build (the e2e files run bin/ic).
// Besides test/postgres/, it runs the conformance files of `npm test` on PostgreSQL (test/postgres/conformance.ts).
if (process.env.NODE_EXTRA_CA_CERTS) delete process.env.NODE_EXTRA_CA_CERTS; // see vitest.config.mts

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
      { extends: true, test: { name: 'postgres', include: ['test/postgres/**/*.test.ts'], globalSetup } },
      {
        extends: true,
        test: {
          // `npm test`'s files again, every temp repository and store on the suite's server (test/support/engine.ts).
          name: 'conformance',
          globalSetup,
          include: [...CONFORMANCE_FILES],
          exclude: knownFailures ? [] : KNOWN_FAILING_FILES.map((known) => known.file),
          env: { IC_TEST_ENGINE: 'postgres' },
        },
      },
    ],
  },
});
