// The closed set of error codes and the exit code each maps to (docs/reference.md, "Exit codes and error codes").
export const EXIT_CODES = {
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
} as const;

export type ErrorCode = keyof typeof EXIT_CODES;

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

  get exitCode(): number {
    return EXIT_CODES[this.code];
  }
}

export function isIcError(error: unknown): error is IcError {
  return error instanceof IcError;
}
