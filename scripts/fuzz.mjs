// `npm run fuzz [-- --runs N --seed S --path-length L]`: the glob property tests, far longer than `npm test`,
// plus a timing report for overlaps(). The seed is printed first so any failure replays exactly.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '200000' },
    seed: { type: 'string' },
    'path-length': { type: 'string', default: '5' },
  },
});
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
const runs = values.runs;
console.log(`fuzz seed ${seed} (replay: npm run fuzz -- --seed ${seed} --runs ${runs} --path-length ${values['path-length']})`);

const result = spawnSync('npx', ['vitest', 'run', 'test/core/glob/property.test.ts', 'test/core/glob/hostile.test.ts', '--testTimeout=86400000'], {
  stdio: 'inherit',
  env: {
    ...process.env,
    FUZZ_RUNS: runs,
    FUZZ_SEED: seed,
    FUZZ_PATH_LENGTH: values['path-length'],
    FUZZ_TIMING: '1',
  },
});
console.log(`fuzz seed ${seed}: ${result.status === 0 ? 'passed' : 'FAILED'}`);
process.exit(result.status ?? 1);
