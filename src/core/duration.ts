import { IcError } from './errors';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;

export const MAX_TTL_MS = 24 * 3_600_000;

// Parses `90s`, `15m`, `2h`, `1d` or bare seconds into milliseconds; `what` names the flag in errors.
export function parseDuration(input: string, what = 'duration'): number {
  const match = DURATION.exec(input.trim());
  if (!match) {
    throw new IcError('INVALID_INPUT', `${what} "${input}" is not a duration; write e.g. 90s, 15m, 2h, 1d or a number of seconds`, { value: input });
  }
  const amount = Number(match[1]);
  const unit = match[2] ?? 's';
  return Math.round(amount * (UNIT_MS[unit] ?? 1_000));
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
