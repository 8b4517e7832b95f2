import { defineConfig } from 'vitest/config';

// The real-client suite (`npm run test:clients`): real Claude Code and Codex binaries against local mock
// model servers. Files are *.real.ts so that the main `npm test` run never picks them up.
// NODE_EXTRA_CA_CERTS makes every node process parse a CA bundle at start (~80 ms on the CI machine): the
// suites start thousands of processes, and only npm (the package test) talks TLS: it gets the bundle as its cafile.
if (process.env.NODE_EXTRA_CA_CERTS) {
  process.env.npm_config_cafile ??= process.env.NODE_EXTRA_CA_CERTS;
  delete process.env.NODE_EXTRA_CA_CERTS;
}

export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/clients/**/*.real.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
