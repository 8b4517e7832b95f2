// Time: clocks, instants and durations. Plain epoch milliseconds inside; RFC 3339 UTC with milliseconds at the
// edges (docs/reference.md, "Output"); durations as people write them (`90s`, `15m`).
import { IcError } from './errors';
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export function formatTime(ms: number): string {
  return new Date(ms).toISOString();
}

// A span as people read it in a relative time ("in 14m", "3s ago"): 45s, 14m, 2.5h, 1.2d.
export function spanText(ms: number): string {
  return ms < 60_000 ? `${Math.round(ms / 1000)}s` : ms < 3_600_000 ? `${Math.round(ms / 60_000)}m` : ms < 86_400_000 ? `${(ms / 3_600_000).toFixed(1)}h` : `${(ms / 86_400_000).toFixed(1)}d`;
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

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
const BARE_NUMBER = /^\d+(?:\.\d+)?$/;

export const MAX_TTL_MS = 24 * 3_600_000;

// Parses `90s`, `15m`, `2h`, `1d` (or `500ms`) into milliseconds; `what` names the flag or variable in
// errors. A unit is required: a bare `10` was read as seconds, and `--ttl 10 minutes` then took a
// 10-second lock plus a lock on a file named `minutes`. Only `0` needs none (it is 0 in every unit).
export function parseDuration(input: string, what = 'duration'): number {
  const text = input.trim();
  if (text === '0') return 0;
  if (BARE_NUMBER.test(text)) {
    throw new IcError('INVALID_INPUT', `${what} "${input}" needs a unit: write ${text}s or ${text}m (units: ms, s, m, h, d)`, { value: input });
  }
  const match = DURATION.exec(text);
  if (!match) {
    throw new IcError('INVALID_INPUT', `${what} "${input}" is not a duration; write e.g. 90s, 15m, 2h or 1d`, { value: input });
  }
  return Math.round(Number(match[1]) * UNIT_MS[match[2]!]!);
}

// A TTL must be positive and at most 24h: there are no immortal locks.
export function parseTtl(input: string): number {
  const ms = parseDuration(input, '--ttl');
  if (ms <= 0) throw new IcError('INVALID_INPUT', `--ttl must be positive, got "${input}"`, { value: input });
  if (ms > MAX_TTL_MS) throw new IcError('INVALID_INPUT', `--ttl may be at most 24h, got "${input}"`, { value: input, max: '24h' });
  return ms;
}

// Durations such as --wait, --expiring or --since may be zero but never negative or absurd.
export function parseNonNegativeDuration(input: string, what: string, maxMs = 366 * UNIT_MS.d!): number {
  const ms = parseDuration(input, what);
  if (ms > maxMs) throw new IcError('INVALID_INPUT', `${what} is too long: "${input}"`, { value: input });
  return ms;
}

// The short form people write: 15000 → `15s`, 90000 → `90s`, 300000 → `5m`.
export function formatDuration(ms: number): string {
  const unit = (['d', 'h', 'm', 's'] as const).find((name) => ms % UNIT_MS[name]! === 0) ?? 'ms';
  return `${ms / UNIT_MS[unit]!}${unit}`;
}
