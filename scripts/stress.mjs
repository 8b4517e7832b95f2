// `npm run stress [-- --ops N --procs N --seed S --fault-every MS --lock-delay MS --keep | --recheck DIR]`: the lock-set
// stress with faults (test/reliability/stress-run.ts) at full size. Prints the counts; exits 1 on any
// violation and keeps the run's directory (database + history.jsonl) for inspection.
import { parseArgs } from 'node:util';
import { loadHarness, snapshotBin } from './harness.mjs';

const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '20000' },
    procs: { type: 'string', default: '16' },
    owners: { type: 'string', default: '8' },
    seed: { type: 'string' },
    'fault-every': { type: 'string', default: '150' },
    'sweep-every': { type: 'string', default: '400' },
    'lock-delay': { type: 'string', default: '1000' },
    keep: { type: 'boolean', default: false },
    recheck: { type: 'string' },
    seconds: { type: 'string' },
  },
});
const harness = await loadHarness('test/reliability/stress-run.ts');
if (values.recheck) {
  // Check a kept run's directory again (history.jsonl + database), e.g. after a checker fix.
  const result = harness.recheckRun(values.recheck, { seconds: values.seconds ? Number(values.seconds) : undefined });
  console.log(harness.summarize(result));
  for (const violation of result.violations.slice(0, 50)) console.log(`  VIOLATION ${violation}`);
  process.exit(result.violations.length ? 1 : 0);
}
const seed = Number(values.seed ?? Math.floor(Math.random() * 2 ** 31));
const options = {
  bin: snapshotBin(),
  ops: Number(values.ops),
  procs: Number(values.procs),
  owners: Number(values.owners),
  seed,
  faultEveryMs: Number(values['fault-every']),
  sweepEveryMs: Number(values['sweep-every']),
  lockDelayMs: Number(values['lock-delay']),
  keep: values.keep,
  log: (line) => console.log(line),
};
console.log(`stress: ${options.ops} ops, ${options.procs} processes, ${options.owners} owners, seed ${seed}, a fault every ${options.faultEveryMs} ms, lock-delay ${options.lockDelayMs} ms`);
process.on('SIGINT', () => {
  console.log('stress: stopping early (SIGINT): draining, then checking what ran');
  harness.requestStop();
});
const result = await harness.runStress(options);
console.log(harness.summarize(result));
for (const violation of result.violations.slice(0, 50)) console.log(`  VIOLATION ${violation}`);
if (result.violations.length || options.keep) console.log(`history and database kept in ${result.dir}`);
process.exit(result.violations.length ? 1 : 0);
