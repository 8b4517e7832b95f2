import { existsSync, readFileSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import type { ClientConfig } from 'pg';
import { parse } from 'pg-connection-string';
import { queryOf, splitUrl, withoutParameters } from '../url';
import { passwordFromFile } from './pgpass';

// A connection URL (libpq's syntax) and the PG* variables → node-postgres's settings, with libpq's meaning
// where the two differ: the default host (the server's unix socket, not localhost), the default user (the
// operating system's), and sslmode (pg 8 reads `prefer`/`require`/`verify-ca` as `verify-full`; libpq does not).
// Runs in the driver's worker (worker.ts), which reads certificate files itself.

export type SslMode = 'disable' | 'allow' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';
const SSL_MODES: readonly string[] = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

// What the driver tries, in order: libpq's `prefer` tries TLS and falls back to plain text when the server
// has none; `allow` tries plain text and falls back to TLS when the server refuses it.
export interface ConnectPlan {
  config: ClientConfig;
  tls: 'first' | 'only' | 'never' | 'fallback';
  sslmode: SslMode;
}

// Parameters ic reads itself: pg-connection-string would read the ssl ones with pg's meaning (and warn).
const OWN = new Set(['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat', 'connect_timeout']);

// Debian's libpq looks for the server's socket here first; upstream's default is /tmp.
export const DEFAULT_SOCKET_DIRS = ['/var/run/postgresql', '/tmp'];

// A URL or setting ic cannot use as written (usage: false for what this host lacks: a certificate file).
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly usage = true,
  ) {
    super(message);
  }
}

export function connectPlan(url: string, env: NodeJS.ProcessEnv, connectTimeoutMs: number): ConnectPlan {
  const own = new Map(queryOf(url).filter(([key]) => OWN.has(key)));
  // The URL's own port (after a bracketed IPv6 address): pg's parser (WHATWG's URL) would say only "Invalid URL".
  const port = /^(?:\[[^\]]*\]|[^:]*):([^:,]*)/.exec(splitUrl(url).rest.split(/[/?#]/)[0]!)?.[1];
  if (port && !validPort(port)) throw new ConfigError(`the port ${JSON.stringify(port)} is not a valid port (1 to 65535)`);
  let parsed: Record<string, unknown>;
  try {
    parsed = parse(withoutParameters(url, (name) => OWN.has(decodeURIComponent(name)))) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`it is not a well-formed URL (${(error as Error).message})`);
  }
  const config: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) if (value !== '' && value !== undefined && value !== null) config[key] = value;
  delete config.ssl;
  delete config.sslmode;
  if (parsed.password !== undefined && parsed.password !== '') config.password = parsed.password;
  // pg's own defaults are localhost and $USER; libpq's are the local socket and the operating system's user.
  const portText = String(config.port ?? env.PGPORT ?? 5432);
  if (!validPort(portText)) throw new ConfigError(`the port ${JSON.stringify(portText)} is not a valid port (1 to 65535)`);
  config.port = Number(portText);
  const host = String(config.host ?? env.PGHOST ?? defaultSocketDir(config.port as number));
  if (host.includes(',')) throw new ConfigError('several hosts in one URL are not supported; name one host');
  config.host = host;
  config.user ??= env.PGUSER || osUser(env);
  config.database ??= env.PGDATABASE || config.user;
  if (config.application_name === undefined && env.PGAPPNAME) config.application_name = env.PGAPPNAME;
  config.connectionTimeoutMillis = connectTimeoutMs;
  // pg's own reading of ~/.pgpass warns on every call: read it here (pgpass.ts), when the server asks.
  if (config.password === undefined && env.PGPASSWORD === undefined) {
    const file = (config.passfile as string | undefined) || env.PGPASSFILE || (env.HOME ? `${env.HOME}/.pgpass` : undefined);
    config.password = () => passwordFromFile(file, host, Number(portText), String(config.database), String(config.user));
  }
  const sslmode = (own.get('sslmode') || env.PGSSLMODE || 'prefer') as SslMode;
  if (!SSL_MODES.includes(sslmode)) throw new ConfigError(`sslmode must be one of ${SSL_MODES.join(', ')}, not ${JSON.stringify(sslmode)}`);
  // libpq uses no TLS over a unix socket, whatever sslmode says.
  if (host.startsWith('/')) return { config: config as ClientConfig, tls: 'never', sslmode };
  const rootcert = own.get('sslrootcert') || env.PGSSLROOTCERT || undefined;
  config.ssl = tlsOptions(sslmode, host, rootcert, own.get('sslcert') || env.PGSSLCERT, own.get('sslkey') || env.PGSSLKEY, env);
  const tls = sslmode === 'disable' ? 'never' : sslmode === 'allow' ? 'fallback' : sslmode === 'prefer' ? 'first' : 'only';
  return { config: config as ClientConfig, tls, sslmode };
}

// libpq's checks by sslmode: `require` encrypts without checking the certificate (unless a root certificate
// is given: then as verify-ca), `verify-ca` checks the chain, `verify-full` the chain and the host name.
function tlsOptions(sslmode: SslMode, host: string, rootcert: string | undefined, cert: string | undefined, key: string | undefined, env: NodeJS.ProcessEnv): Record<string, unknown> {
  const options: Record<string, unknown> = { servername: isIpLiteral(host) ? undefined : host };
  if (cert) options.cert = readFile(cert, 'sslcert');
  if (key) options.key = readFile(key, 'sslkey');
  const rootFile = rootcert ?? defaultRootCert(env);
  const verify = sslmode === 'verify-ca' || sslmode === 'verify-full' || (sslmode === 'require' && rootcert !== undefined && rootcert !== 'system');
  // Nothing checked, so no CAs: an empty list keeps Node 20 from parsing its ~140 bundled roots for the
  // secure context (~17 ms of CPU a call, measured), which it does without `ca` whether or not it verifies.
  if (!verify) return { ...options, rejectUnauthorized: false, ca: [] };
  if (rootFile !== 'system') {
    if (rootFile === undefined) throw new ConfigError(`sslmode=${sslmode} needs the server's root certificate: set sslrootcert (or PGSSLROOTCERT), or sslrootcert=system for the system's`, false);
    options.ca = readFile(rootFile, 'sslrootcert');
  }
  if (sslmode !== 'verify-full') options.checkServerIdentity = () => undefined;
  return options;
}

function readFile(file: string, setting: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`the ${setting} file ${file} ${code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? (error as Error).message})`}`, false);
  }
}

function validPort(text: string): boolean {
  return /^\d+$/.test(text) && Number(text) >= 1 && Number(text) <= 65_535;
}

// libpq's default root certificate: ~/.postgresql/root.crt when it exists.
function defaultRootCert(env: NodeJS.ProcessEnv): string | undefined {
  const home = env.HOME;
  const file = home ? `${home}/.postgresql/root.crt` : undefined;
  return file !== undefined && existsSync(file) ? file : undefined;
}

function isIpLiteral(host: string): boolean {
  return /^[0-9.]+$/.test(host) || host.includes(':');
}

function defaultSocketDir(port: number): string {
  return DEFAULT_SOCKET_DIRS.find((dir) => isSocket(`${dir}/.s.PGSQL.${port}`)) ?? DEFAULT_SOCKET_DIRS[0]!;
}

function isSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

// libpq's default user: the operating system's (USER is not consulted by libpq, so not by ic either).
function osUser(env: NodeJS.ProcessEnv): string {
  try {
    return userInfo().username;
  } catch {
    return env.USER ?? 'postgres';
  }
}
