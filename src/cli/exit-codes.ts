import type { ErrorCode } from '../core/errors';

// The exit code of each error code (docs/reference.md, "Exit codes and error codes"): 1 is a plain "no",
// the rest follow sysexits.h. Exit 2 is never used.
export const EXIT_CODES: Record<ErrorCode, number> = {
  CONFLICT: 1,
  NOT_FOUND: 1,
  NOT_OWNER: 1,
  NOT_HELD: 1,
  TIMEOUT: 1,
  USAGE: 64,
  INVALID_PATTERN: 65,
  TOO_COMPLEX: 65,
  OUTSIDE_SCOPE: 65,
  INVALID_INPUT: 65,
  DB_UNAVAILABLE: 69,
  INTERNAL: 70,
  BUSY: 75,
};
