import { defineConfig } from 'vitest/config';

// The real-client suite (`npm run test:clients`): real Claude Code and Codex binaries against local mock
// model servers. Files are *.real.ts so that the main `npm test` run never picks them up.
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
