// `npm run crash [-- --kills N --parallel N --max-delay MS --seed S]`: SIGKILL real `ic` writers at random
// moments, hundreds of times, and verify the database after each (test/reliability/crash-run.ts).
// Prints the counts; exits 1 on any corrupt database or lost grant.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoPath = (path) => join(root, path);

// The harness is TypeScript shared with npm test: bundle it next to node_modules so better-sqlite3 resolves.
async function loadHarness(entry) {
  const outfile = repoPath(`node_modules/.cache/ic-reliability/${entry.replace(/\W+/g, '-')}.cjs`);
  await build({ entryPoints: [repoPath(entry)], outfile, bundle: true, platform: 'node', target: 'node20', format: 'cjs', external: ['better-sqlite3'], logLevel: 'warning' });
  return createRequire(import.meta.url)(outfile);
}

// A long run must test one build: others may rebuild dist/ meanwhile, so run a private copy of it.
function snapshotBin() {
  const dir = repoPath(`node_modules/.cache/ic-reliability/bin-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  cpSync(repoPath('bin'), join(dir, 'bin'), { recursive: true });
  cpSync(repoPath('dist'), join(dir, 'dist'), { recursive: true });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'bin/ic');
}

const { values } = parseArgs({
  options: {
    kills: { type: 'string', default: '500' },
    parallel: { type: 'string', default: '2' },
    'max-delay': { type: 'string', default: '0' },
    'fresh-every': { type: 'string', default: '25' },
    seed: { type: 'string' },
  },
});
const harness = await loadHarness('test/reliability/crash-run.ts');
const seed = Number(values.seed ?? Math.floor(Math.random() * 2 ** 31));
const options = {
  bin: snapshotBin(),
  kills: Number(values.kills),
  parallel: Number(values.parallel),
  maxDelayMs: Number(values['max-delay']),
  freshEvery: Number(values['fresh-every']),
  seed,
  log: (line) => console.log(line),
};
console.log(`crash: ${options.kills} kills, ${options.parallel} writers at a time, delays 0..${options.maxDelayMs || 'auto'} ms, a new database every ${options.freshEvery} kills, seed ${seed}`);
const result = await harness.runCrash(options);
console.log(harness.summarizeCrash(result));
for (const problem of result.problems.slice(0, 50)) console.log(`  PROBLEM ${problem}`);
process.exit(result.corrupt || result.lostGrants || result.problems.length ? 1 : 0);
