// The closed set of error codes (docs/reference.md, "Exit codes and error codes"); src/cli/exit-codes.ts maps
// each to its exit code.
export const ERROR_CODES = [
  'CONFLICT',
  'NOT_FOUND',
  'NOT_OWNER',
  'NOT_HELD',
  'TIMEOUT',
  'USAGE',
  'INVALID_PATTERN',
  'TOO_COMPLEX',
  'OUTSIDE_SCOPE',
  'INVALID_INPUT',
  'DB_UNAVAILABLE',
  'INTERNAL',
  'BUSY',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

// One small error type: a code from the closed set, a message for people, optional extra JSON fields.
export class IcError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IcError';
    this.code = code;
    this.details = details;
  }
}

export function isIcError(error: unknown): error is IcError {
  return error instanceof IcError;
}
