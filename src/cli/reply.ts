import { IcError } from '../core/errors';
import { EXIT_CODES } from './exit-codes';
import type { Human } from './render';

// What a command hands back to the one place that writes stdout: a JSON document, its human form, an exit code.
export interface Reply {
  json: Record<string, unknown>;
  human: () => Human;
  exitCode: number;
}

export function success(json: Record<string, unknown>, human: () => Human, exitCode = 0): Reply {
  return { json: { ok: true, ...json }, human, exitCode };
}

export function failure(error: IcError, extra: Record<string, unknown> = {}, human?: () => Human): Reply {
  return {
    json: { ok: false, ...extra, error: { code: error.code, message: error.message, ...error.details } },
    human: human ?? (() => `error: ${error.message}`),
    exitCode: EXIT_CODES[error.code],
  };
}

// Anything that is not an IcError is a bug: it becomes INTERNAL (exit 70) with no stack on stdout.
export function toIcError(error: unknown): IcError {
  if (error instanceof IcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new IcError('INTERNAL', `internal error: ${message} (set IC_DEBUG=1 for a stack trace on stderr)`, {}, { cause: error });
}
