// Time is plain epoch milliseconds inside; RFC 3339 UTC with milliseconds at the edges (docs/reference.md, "Output").
import { IcError } from './errors';
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function formatNullableTime(ms: number | null): string | null {
  return ms === null ? null : formatTime(ms);
}

/** 2000-01-01T00:00:00.000Z: no lock is older than ic. */
export const EARLIEST_TIME_MS = Date.UTC(2000, 0, 1);
/** 9999-12-30T00:00:00.000Z: a time plus the longest TTL (24h) still prints as a four-digit year. */
export const LATEST_TIME_MS = Date.UTC(9999, 11, 30);

// Every time a command writes passes here first: a clock outside 2000–9999 is refused, never stored.
export function checkClock(ms: number, source: string): number {
  if (!Number.isSafeInteger(ms) || ms < EARLIEST_TIME_MS || ms > LATEST_TIME_MS) {
    throw new IcError(
      'INVALID_INPUT',
      `${source} reads ${Number.isFinite(ms) && Math.abs(ms) < 8.64e15 ? new Date(ms).toISOString() : String(ms)}, outside the years 2000-9999 that ic accepts; fix the clock`,
      { source, value: ms },
    );
  }
  return ms;
}
