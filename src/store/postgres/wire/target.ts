import { queryOf, safeDecode, splitUrl } from '../url';
import { net } from '../../../lazy-builtins';

// Where and as whom ic's built-in driver connects, read from a connection URL and the PG* variables the way
// libpq reads them. The built-in driver speaks no TLS and resolves no host names, so it takes what needs
// neither: a unix socket, or a loopback address (where TLS protects nothing); a URL that needs more
// (TLS, a remote host, several hosts, a service file, Kerberos) is libpq's (docs/postgres.md, "Drivers").

export type Endpoint = { kind: 'socket'; path: string } | { kind: 'tcp'; addresses: string[]; port: number };

export interface ConnectionTarget {
  endpoint: Endpoint;
  // What a password file line is matched against (libpq's rules: a unix socket is "localhost").
  host: string;
  port: number;
  user: string;
  database: string;
  password: string | undefined;
  passfile: string | undefined;
  options: string | undefined;
  applicationName: string | undefined;
  connectTimeoutMs: number | undefined;
}

export type TargetResult = { ok: true; target: ConnectionTarget } | { ok: false; reason: string };

// Parameters the built-in driver honours or may ignore; any other one asks for something only libpq does.
const UNDERSTOOD = new Set([
  'host',
  'port',
  'user',
  'password',
  'dbname',
  'sslmode',
  'gssencmode',
  'options',
  'application_name',
  'fallback_application_name',
  'connect_timeout',
  'passfile',
  'client_encoding',
  'keepalives',
  'keepalives_idle',
  'keepalives_interval',
  'keepalives_count',
  'tcp_user_timeout',
]);

// Debian's libpq looks for the server's socket here first; upstream's default is /tmp.
export const DEFAULT_SOCKET_DIRS = ['/var/run/postgresql', '/tmp'];

interface ConnectionParts {
  user?: string;
  password?: string;
  hosts: string[];
  ports: string[];
  database?: string;
  parameters: Map<string, string>;
}

// libpq's URI syntax, on url.ts's reading of the user part and the query (a parameter given twice: the last).
function parseUrl(url: string): ConnectionParts {
  const { userinfo, rest } = splitUrl(url);
  const path = rest.replace(/[?#].*$/, '');
  const slash = path.indexOf('/');
  const hostList = slash === -1 ? path : path.slice(0, slash);
  const database = slash === -1 ? undefined : safeDecode(path.slice(slash + 1)) || undefined;
  const colon = userinfo?.indexOf(':') ?? -1;
  const hosts: string[] = [];
  const ports: string[] = [];
  for (const spec of hostList === '' ? [] : hostList.split(',')) {
    const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(spec);
    if (bracketed) {
      hosts.push(bracketed[1]!);
      ports.push(bracketed[2] ?? '');
      continue;
    }
    const portAt = spec.lastIndexOf(':');
    hosts.push(safeDecode(portAt === -1 ? spec : spec.slice(0, portAt)));
    ports.push(portAt === -1 ? '' : spec.slice(portAt + 1));
  }
  return {
    user: userinfo === undefined ? undefined : safeDecode(colon === -1 ? userinfo : userinfo.slice(0, colon)) || undefined,
    password: userinfo === undefined || colon === -1 ? undefined : safeDecode(userinfo.slice(colon + 1)),
    hosts,
    ports,
    database,
    parameters: new Map(queryOf(url)),
  };
}

function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (ipVersion(host) === 4) return host.startsWith('127.');
  return ipVersion(host) === 6 && /^(?:0*:)*:?0*1$/.test(host);
}

const IPV4_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])';
const IPV4 = new RegExp(`^(?:${IPV4_OCTET}\\.){3}${IPV4_OCTET}$`);

// What net.isIP answers (4, 6, or 0 for no IP literal), without loading node:net: that costs a call ~5 ms, and
// every call over TCP asks. An IPv6 literal is one the URL parser takes between brackets; one with a zone
// (`fe80::1%eth0`), which the URL parser refuses, is left to net.
export function ipVersion(host: string): 0 | 4 | 6 {
  if (IPV4.test(host)) return 4;
  if (!host.includes(':')) return 0;
  if (host.includes('%')) return net().isIP(host) === 6 ? 6 : 0;
  if (!/^[0-9a-f:.]+$/i.test(host)) return 0; // the URL parser would drop a tab or a newline, and take more
  try {
    new URL(`http://[${host}]/`);
    return 6;
  } catch {
    return 0;
  }
}

export interface TargetEnvironment {
  env: NodeJS.ProcessEnv;
  // The operating system's user name, asked only when nothing else names the user (it reads /etc/passwd).
  osUser: () => string;
  // Which of DEFAULT_SOCKET_DIRS holds a socket for this port (the first that does), for a URL naming no host.
  socketExists: (path: string) => boolean;
}

export function connectionTarget(url: string, where: TargetEnvironment): TargetResult {
  const { env } = where;
  const parts = parseUrl(url);
  for (const key of parts.parameters.keys()) if (!UNDERSTOOD.has(key)) return { ok: false, reason: `the URL sets ${key}` };
  if (env.PGSERVICE || parts.parameters.has('service')) return { ok: false, reason: 'a service file is named' };
  const parameter = (key: string): string | undefined => parts.parameters.get(key) || undefined;
  const hostText = parameter('host') ?? (parts.hosts.length > 0 ? parts.hosts.join(',') : undefined) ?? (env.PGHOST || undefined);
  const portText = parameter('port') ?? (parts.ports.some((port) => port !== '') ? parts.ports.join(',') : undefined) ?? (env.PGPORT || undefined) ?? '5432';
  if (hostText?.includes(',') || portText.includes(',')) return { ok: false, reason: 'the URL names several hosts' };
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return { ok: false, reason: `the port ${portText} is not a number` };
  const sslmode = parameter('sslmode') ?? (env.PGSSLMODE || undefined) ?? 'prefer';
  const gssencmode = parameter('gssencmode') ?? (env.PGGSSENCMODE || undefined) ?? 'prefer';
  if (gssencmode === 'require') return { ok: false, reason: 'gssencmode=require' };

  let endpoint: Endpoint;
  let matchHost: string;
  if (hostText === undefined || hostText.startsWith('/')) {
    const dirs = hostText === undefined ? DEFAULT_SOCKET_DIRS : [hostText];
    const paths = dirs.map((dir) => `${dir.replace(/\/+$/, '')}/.s.PGSQL.${port}`);
    endpoint = { kind: 'socket', path: paths.find(where.socketExists) ?? paths[0]! };
    matchHost = 'localhost';
  } else {
    if (!['disable', 'allow', 'prefer'].includes(sslmode)) return { ok: false, reason: `sslmode=${sslmode} asks for TLS` };
    const loopback = isLoopback(hostText);
    if (!loopback && (ipVersion(hostText) === 0 || sslmode !== 'disable')) return { ok: false, reason: `${hostText} is not this machine` };
    endpoint = { kind: 'tcp', addresses: hostText === 'localhost' ? ['127.0.0.1', '::1'] : [hostText], port };
    matchHost = hostText;
  }
  const user = parameter('user') ?? parts.user ?? (env.PGUSER || undefined) ?? where.osUser();
  const timeout = parameter('connect_timeout') ?? (env.PGCONNECT_TIMEOUT || undefined);
  return {
    ok: true,
    target: {
      endpoint,
      host: matchHost,
      port,
      user,
      database: parameter('dbname') ?? parts.database ?? (env.PGDATABASE || undefined) ?? user,
      password: parts.parameters.get('password') ?? parts.password ?? (env.PGPASSWORD || undefined),
      passfile: parameter('passfile') ?? (env.PGPASSFILE || undefined),
      options: parameter('options'),
      applicationName: parameter('application_name') ?? (env.PGAPPNAME || undefined) ?? parameter('fallback_application_name'),
      connectTimeoutMs: timeout === undefined || !(Number(timeout) > 0) ? undefined : Math.max(2, Number(timeout)) * 1000,
    },
  };
}
