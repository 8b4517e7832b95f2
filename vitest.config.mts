import { sqlAsText } from './test/support/sql-as-text.mjs';
import { defineConfig } from 'vitest/config';

// Three tiers (README, "Tests"): `unit` runs in-process against src/ and real SQLite files, in seconds;
// `e2e` runs the built bin as processes in temp git repos; `reliability` (fuzz, stress, crash, health)
// runs its files one at a time, after the others, so its timing-sensitive runs do not share the cores.
// `npm test` runs all three; the real-client suite has its own config (test/clients/vitest.config.mts).
// Tests of src/cli that run the built bin (help examples, tables on a real pty): end-to-end by nature.
// NODE_EXTRA_CA_CERTS makes every node process parse a CA bundle at start (~80 ms on the CI machine): the
// suites start thousands of processes, and only npm (the package test) talks TLS: it gets the bundle as its cafile.
if (process.env.NODE_EXTRA_CA_CERTS) {
  process.env.npm_config_cafile ??= process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

const SPAWNING_CLI_TESTS = ['test/cli/help-examples.test.ts', 'test/cli/tables-pty.test.ts'];

export default defineConfig({
  plugins: [sqlAsText],
  test: {
    // Generous: a loaded 2-core machine (a second copy of the suite beside this one) runs a process-heavy test 5-10x slower.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/{core,coord,store,cli,hooks,docs}/**/*.test.ts', 'test/reliability/checker.test.ts'],
          exclude: [...SPAWNING_CLI_TESTS],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'test/hardening/**/*.test.ts', ...SPAWNING_CLI_TESTS],
        },
      },
      {
        extends: true,
        test: {
          name: 'reliability',
          include: ['test/reliability/**/*.test.ts'],
          exclude: ['test/reliability/checker.test.ts'],
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
