import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/errors';
import { EXIT_CODES } from '../../src/cli/exit-codes';

describe('exit codes', () => {
  it.each([
    [1, ['CONFLICT', 'NOT_FOUND', 'NOT_OWNER', 'NOT_HELD', 'TIMEOUT']],
    [64, ['USAGE']],
    [65, ['INVALID_PATTERN', 'TOO_COMPLEX', 'OUTSIDE_SCOPE', 'INVALID_INPUT']],
    [69, ['DB_UNAVAILABLE']],
    [70, ['INTERNAL']],
    [75, ['BUSY']],
  ] as const)('exit %i is %j', (exit, codes) => {
    for (const code of codes) expect(EXIT_CODES[code]).toBe(exit);
  });

  it('maps every error code and never uses exit 0 or 2', () => {
    expect(Object.keys(EXIT_CODES).sort()).toEqual([...ERROR_CODES].sort());
    for (const code of ERROR_CODES) expect([0, 2]).not.toContain(EXIT_CODES[code]);
  });
});
