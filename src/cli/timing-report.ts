import { lastTransactionTimings } from '../store/clock';

// For the benchmark: how long this process waited for, and then held, the write lock.
export function reportTimingsAtExit(): void {
  process.on('exit', () => {
    const timings = lastTransactionTimings();
    process.stderr.write(`ic-timing ${JSON.stringify({ lock_wait_ms: timings.lockWaitMs, held_ms: timings.heldMs, uptime_ms: performance.now() })}\n`);
  });
}
