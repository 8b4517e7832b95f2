// `npm run crash [-- --kills N --parallel N --max-delay MS --seed S]`: SIGKILL real `ic` writers at random
// moments, hundreds of times, and verify the database after each (test/reliability/crash-run.ts).
// Prints the counts; exits 1 on any corrupt database or lost grant.
import { parseArgs } from 'node:util';
import { loadHarness, snapshotBin } from './harness.mjs';

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
