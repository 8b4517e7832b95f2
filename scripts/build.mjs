// Bundles src/ into one CommonJS file that bin/ic loads: one file to read at start-up is faster than hundreds.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/cli/entry.ts'],
  outfile: 'dist/ic.cjs',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['better-sqlite3'],
  sourcemap: 'linked',
  logLevel: 'warning',
  loader: { '.sql': 'text' },
});
