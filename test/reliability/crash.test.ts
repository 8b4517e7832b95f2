// A small configuration of `npm run crash`: SIGKILL real writers at random moments, verify after each.
import { describe, expect, it } from 'vitest';
import { IC_BIN } from '../support/cli';
import { DEFAULT_CRASH, runCrash, summarizeCrash } from './crash-run';

const KILLS = Number(process.env.CRASH_KILLS ?? 100);
const SEED = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe('crash safety', () => {
  it(`${KILLS} kill -9s of writers: no corrupt database, no lost grant (seed ${SEED})`, async () => {
    const result = await runCrash({ ...DEFAULT_CRASH, bin: IC_BIN, kills: KILLS, freshEvery: 20, seed: SEED });
    console.log(`crash seed ${SEED}\n${summarizeCrash(result)}`);
    expect(result.problems).toEqual([]);
    expect(result.corrupt).toBe(0);
    expect(result.lostGrants).toBe(0);
    expect(result.kills).toBeGreaterThanOrEqual(KILLS);
  }, 120_000);
});
