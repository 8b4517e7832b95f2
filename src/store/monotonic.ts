// A monotonic clock in ms. Not `performance.now()`: touching the `performance` global loads node:perf_hooks,
// ~2 ms of every hook's start.
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
