import { statSync } from 'node:fs';
import { IcError } from '../../core/errors';
import { LibpqSession } from './libpq-session';
import type { PgSession } from './session';
import { connectionTarget, type ConnectionTarget } from './wire/target';
import { WireSession } from './wire/session';
import { forgetLogin, takeLoginAhead } from './wire/login-ahead';
import { parameterOf, withParameter } from './url';
import { os } from '../../lazy-builtins';

export type DriverChoice = { driver: 'builtin'; target: ConnectionTarget } | { driver: 'libpq'; reason: string };

// Which driver serves a connection URL: IC_PG_DRIVER=builtin|libpq decides when set; otherwise ic's built-in
// client for whatever it can reach (a unix socket or a loopback address, no TLS asked), libpq for the rest.
export function chooseDriver(conninfo: string, env: NodeJS.ProcessEnv): DriverChoice {
  const wanted = env.IC_PG_DRIVER || 'auto';
  if (wanted !== 'auto' && wanted !== 'builtin' && wanted !== 'libpq') {
    throw new IcError('USAGE', `IC_PG_DRIVER must be builtin, libpq or auto, not ${JSON.stringify(wanted)}`, { hint: 'unset IC_PG_DRIVER to let ic choose' });
  }
  if (wanted === 'libpq') return { driver: 'libpq', reason: 'IC_PG_DRIVER=libpq' };
  const target = connectionTarget(conninfo, { env, osUser: () => osUserName(env), socketExists });
  if (target.ok) return { driver: 'builtin', target: target.target };
  if (wanted === 'builtin') {
    throw new IcError('DB_UNAVAILABLE', `IC_PG_DRIVER=builtin, but ic's built-in driver cannot make this connection: ${target.reason}`, {
      hint: 'unset IC_PG_DRIVER (libpq then makes it), or connect through a unix socket or a loopback address',
    });
  }
  return { driver: 'libpq', reason: target.reason };
}

// `lockTimeoutMs`: the session's lock_timeout. The built-in driver sets it with the first statement, not in the
// startup message, so that one install's logins are the same bytes whatever a call's deadline (bin/ic sends
// the last one ahead: wire/login-ahead.ts); libpq gets it in the startup options. Either way a lock_timeout in
// the URL's own `options` wins, as every setting there does.
export function openSession(conninfo: string, env: NodeJS.ProcessEnv, lockTimeoutMs: number): PgSession {
  const choice = chooseDriver(conninfo, env);
  if (choice.driver === 'libpq') {
    forgetLogin(takeLoginAhead());
    const options = parameterOf(conninfo, 'options');
    const withLockTimeout = withParameter(conninfo, 'options', `-c lock_timeout=${lockTimeoutMs}${options ? ` ${options}` : ''}`);
    try {
      return LibpqSession.connect(withLockTimeout, env);
    } catch (error) {
      // A missing driver says why this connection needs it: the person may only have to change the URL.
      if (!(error instanceof IcError) || choice.reason === 'IC_PG_DRIVER=libpq') throw error;
      throw new IcError(error.code, `this connection needs the native libpq driver (${choice.reason}; ic's built-in driver takes a unix socket or a loopback address without TLS). ${error.message}`, {
        ...error.details,
        needs_libpq: choice.reason,
      });
    }
  }
  const session = WireSession.connect(choice.target, { connectTimeoutMs: choice.target.connectTimeoutMs ?? 5_000 });
  if (!optionsSet(parameterOf(conninfo, 'options') ?? '', 'lock_timeout')) session.execLater(`SET lock_timeout = ${lockTimeoutMs}`);
  return session;
}

// Whether a libpq `options` string sets the setting `name`, as the server reads it: `-c NAME=VALUE`,
// `-cNAME=VALUE` or `--NAME=VALUE`, words split at spaces a backslash does not escape, a name's case and
// its dashes (for underscores) not mattering.
export function optionsSet(options: string, name: string): boolean {
  const words = options.match(/(?:\\.|[^\s\\])+/g) ?? [];
  const settings = words.flatMap((word, at) => {
    if (word === '-c') return words[at + 1] === undefined ? [] : [words[at + 1]!];
    if (word.startsWith('--')) return [word.slice(2)];
    if (word.startsWith('-c')) return [word.slice(2)];
    return [];
  });
  return settings.some((setting) => setting.split('=')[0]!.replace(/\\/g, '').toLowerCase().replace(/-/g, '_') === name);
}

function socketExists(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

// libpq's default user: the operating system's (USER is not consulted by libpq, so not by ic either).
function osUserName(env: NodeJS.ProcessEnv): string {
  try {
    return os().userInfo().username;
  } catch {
    return env.USER ?? 'postgres';
  }
}
