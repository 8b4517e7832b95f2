// Bundles src/ into one CommonJS file that bin/ic loads: one file to read at start-up is faster than hundreds.
import { build } from 'esbuild';

const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['better-sqlite3'],
  sourcemap: 'linked',
  logLevel: 'warning',
  loader: { '.sql': 'text' },
};

await Promise.all([
  build({ ...shared, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/ic.cjs' }),
  // The programmatic API, for benchmarks and fuzzers that drive the use cases in-process.
  build({ ...shared, entryPoints: ['src/api.ts'], outfile: 'dist/api.cjs' }),
]);
