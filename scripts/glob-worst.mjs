#!/usr/bin/env node
// Times overlaps() on the worst accepted pairs (test/core/glob/worst-pairs.json, checked for correctness by
// test/core/glob/worst-case.test.ts) and prints them slowest first. Not part of `npm test`.
//
//   npm run build && node scripts/glob-worst.mjs [--reps 41] [--warmup 20]
//
// Each figure is the median of --reps decisions in this fresh process after --warmup rounds over every pair.
// "cold" is what a new check costs: every rep renames the letters a-z of both patterns to unused code points
// (a shift, so ranges like [a-z] keep their meaning), so the shared GlobCache (compiled patterns, decided
// segment pairs) cannot answer from an earlier rep. "hot" repeats the same pair, as a hook re-checking the same locks does.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const ROOT = resolve(new URL('.', import.meta.url).pathname, '..');
const { overlaps, normalizePattern } = require(join(ROOT, 'dist', 'api.cjs'));
const pairs = JSON.parse(readFileSync(join(ROOT, 'test', 'core', 'glob', 'worst-pairs.json'), 'utf8'));
const { values } = parseArgs({ options: { reps: { type: 'string', default: '41' }, warmup: { type: 'string', default: '20' } } });
const REPS = Number(values.reps);
const WARMUP = Number(values.warmup);

let fresh = 0;
// A copy of the pattern with a-z shifted to a block of CJK code points never used before in this process.
const rename = (pattern, base) => pattern.replace(/[a-z]/g, (c) => String.fromCodePoint(base + c.charCodeAt(0) - 0x61));
const variant = ([, a, b]) => {
  const base = 0x4e00 + 32 * (fresh++ % 600);
  return [rename(a, base), rename(b, base)];
};
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const now = () => Number(process.hrtime.bigint()) / 1e6;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e3;
}; // ms of this process's CPU

for (const [name, a, b, expected] of pairs) {
  normalizePattern(a, { root: '/r' });
  normalizePattern(b, { root: '/r' });
  const [x, y] = variant([name, a, b]);
  if (overlaps(a, b).overlap !== expected || overlaps(x, y).overlap !== expected) throw new Error(`wrong answer: ${name}`);
}
for (let round = 0; round < WARMUP; round++) for (const pair of pairs) overlaps(...variant(pair));

const rows = pairs.map((pair) => {
  const cold = [];
  const coldCpu = [];
  for (let i = 0; i < REPS; i++) {
    const [x, y] = variant(pair);
    const t0 = now();
    const c0 = cpu();
    overlaps(x, y);
    coldCpu.push(cpu() - c0);
    cold.push(now() - t0);
  }
  const hot = [];
  for (let i = 0; i < REPS; i++) {
    const t0 = now();
    overlaps(pair[1], pair[2]);
    hot.push(now() - t0);
  }
  return { name: pair[0], cold: median(cold), coldCpu: median(coldCpu), hot: median(hot), length: Math.max(pair[1].length, pair[2].length) };
});
rows.sort((p, q) => q.cold - p.cold);
console.log(`overlaps() on ${rows.length} worst accepted pairs — node ${process.version}, median of ${REPS} after ${WARMUP} warm-up rounds, ms`);
console.log("(cpu = this process's CPU time for the cold decision: on a loaded machine wall time also counts waiting)");
console.log(`${'pair'.padEnd(72)}  ${'cold'.padStart(7)}  ${'cpu'.padStart(7)}  ${'hot'.padStart(7)}  chars`);
for (const r of rows) {
  console.log(`${r.name.padEnd(72)}  ${r.cold.toFixed(3).padStart(7)}  ${r.coldCpu.toFixed(3).padStart(7)}  ${r.hot.toFixed(3).padStart(7)}  ${r.length}`);
}
const worst = rows[0];
console.log(`\nworst: ${worst.name}: ${worst.cold.toFixed(3)} ms cold (target < 1 ms) ${worst.cold < 1 ? '✓' : '✗'}`);
if (worst.cold >= 1) process.exitCode = 1;
