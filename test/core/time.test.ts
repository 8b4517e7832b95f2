import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration, parseNonNegativeDuration, parseTtl } from '../../src/core/time';

describe('durations need a unit', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['500ms', 500],
    ['1.5s', 1_500],
    ['0', 0],
    [' 10m ', 600_000],
  ])('reads %j as %d ms', (input, ms) => {
    expect(parseDuration(input, '--ttl')).toBe(ms);
  });

  it.each([
    ['10', '10s or 10m'],
    ['1.5', '1.5s or 1.5m'],
    ['90', '90s or 90m'],
  ])('refuses the bare number %j with a hint', (input, hint) => {
    expect(() => parseDuration(input, '--ttl')).toThrow(hint);
  });

  it.each(['10 minutes', '', '-1s', '1w', 's', '10sec', '1e3s'])('refuses %j as not a duration', (input) => {
    expect(() => parseDuration(input, 'IC_LOCK_DELAY')).toThrow(/IC_LOCK_DELAY .* (is not a duration|needs a unit)/);
  });

  it('keeps TTLs positive and at most a day', () => {
    expect(() => parseTtl('0')).toThrow(/positive/);
    expect(() => parseTtl('25h')).toThrow(/24h/);
    expect(parseTtl('24h')).toBe(86_400_000);
    expect(() => parseNonNegativeDuration('2d', '--wait', 86_400_000)).toThrow(/too long/);
  });

  it('formats durations as people write them', () => {
    expect([15_000, 90_000, 300_000, 7_200_000, 86_400_000, 1_500].map(formatDuration)).toEqual(['15s', '90s', '5m', '2h', '1d', '1500ms']);
  });
});
