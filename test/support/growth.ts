import { expect } from 'vitest';

// Whether work grows linearly with its input, measured in this process without a fixed bound in
// milliseconds: the whole input against an eighth of it, after a warm-up run of the eighth (the JIT compiles on
// the first). Linear work takes about 8 times as long, quadratic 64 times; a loaded machine slows both runs
// alike, so the ratio holds where an absolute bound does not. Under a second passes too: no super-linear run on
// the inputs used here comes near (they take minutes or hours), and a stall in a tiny run cannot read as growth.
export function expectLinear(run: (scale: number) => void, label = ''): void {
  const timed = (scale: number) => {
    const started = performance.now();
    run(scale);
    return performance.now() - started;
  };
  timed(1 / 8);
  const eighth = timed(1 / 8);
  const whole = timed(1);
  expect(whole < 32 * eighth || whole < 1_000, `${label}: ${eighth.toFixed(1)} ms for an eighth of the input, ${whole.toFixed(1)} ms for all of it`).toBe(true);
}
