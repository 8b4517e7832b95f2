// PostgreSQL connection URLs (`postgres://` or `postgresql://`, libpq's URI syntax). Credentials come from the
// URL, the PG* variables or ~/.pgpass (libpq reads those itself); ic only has to keep passwords out of
// everything it prints.

const SCHEME = /^postgres(?:ql)?:\/\//i;

export function isPostgresUrl(text: string): boolean {
  return SCHEME.test(text);
}

export interface UrlParts {
  scheme: string;
  userinfo: string | undefined;
  rest: string; // host list, path, query
}

// The URL's scheme, its user part (before the last `@` of the authority) and the rest (hosts, path, query).
export function splitUrl(url: string): UrlParts {
  const scheme = SCHEME.exec(url)?.[0] ?? '';
  const afterScheme = url.slice(scheme.length);
  const authorityEnd = afterScheme.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterScheme : afterScheme.slice(0, authorityEnd);
  const at = authority.lastIndexOf('@');
  if (at === -1) return { scheme, userinfo: undefined, rest: afterScheme };
  return { scheme, userinfo: authority.slice(0, at), rest: afterScheme.slice(at + 1) };
}

// The query's parameters as libpq reads them: `%XX` is decoded, `+` stays a plus (not a space, unlike a web form).
export function queryOf(url: string): [string, string][] {
  const question = url.indexOf('?');
  if (question === -1) return [];
  return url
    .slice(question + 1)
    .replace(/#.*$/, '')
    .split('&')
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 ? [safeDecode(pair), ''] : [safeDecode(pair.slice(0, eq)), safeDecode(pair.slice(eq + 1))];
    });
}

export function parameterOf(url: string, key: string): string | undefined {
  return queryOf(url).find(([name]) => name === key)?.[1];
}

export function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// Every spelling of a password this URL (or the environment) gives libpq: what must never be printed.
export function secretsOf(url: string, env: NodeJS.ProcessEnv = process.env): string[] {
  const secrets = new Set<string>();
  const { userinfo } = splitUrl(url);
  const colon = userinfo?.indexOf(':') ?? -1;
  if (userinfo !== undefined && colon !== -1) {
    const raw = userinfo.slice(colon + 1);
    secrets.add(raw);
    secrets.add(safeDecode(raw));
  }
  for (const [key, value] of queryOf(url)) if (key === 'password') secrets.add(value);
  const rawQuery = /[?&]password=([^&#]*)/i.exec(url)?.[1];
  if (rawQuery) secrets.add(rawQuery);
  if (env.PGPASSWORD) secrets.add(env.PGPASSWORD);
  return [...secrets].filter((secret) => secret.length > 0).sort((a, b) => b.length - a.length);
}

// The URL as it may be shown: the password (in the user part or a `password=` parameter) replaced by ***.
export function redactUrl(url: string): string {
  const { scheme, userinfo, rest } = splitUrl(url);
  let shown = url;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    shown = `${scheme}${colon === -1 ? userinfo : `${userinfo.slice(0, colon)}:***`}@${rest}`;
  }
  return shown.replace(/([?&]password=)[^&#]*/gi, '$1***');
}

// Removes every secret from a text meant for people (an error message from libpq or the server).
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('***');
  return out.replace(/(password\s*=\s*)(?:'[^']*'|[^\s&#]+)/gi, '$1***'); // the value only: a URL's next parameters stay
}

function withoutFragment(url: string): string {
  const hashAt = url.indexOf('#');
  return hashAt === -1 ? url : url.slice(0, hashAt);
}

function appendParameters(url: string, pairs: [string, string][]): string {
  if (pairs.length === 0) return url;
  const joiner = !url.includes('?') ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&';
  return `${url}${joiner}${pairs.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&')}`;
}

// Adds connection parameters the URL does not set itself (the URL wins: a person's setting is kept).
export function withDefaults(url: string, defaults: Record<string, string>): string {
  const present = new Set(queryOf(url).map(([key]) => key));
  return appendParameters(
    withoutFragment(url),
    Object.entries(defaults).filter(([key]) => !present.has(key)),
  );
}

// The URL without its fragment and without the parameters whose name (as written, still encoded) `drop` accepts.
export function withoutParameters(url: string, drop: (rawName: string) => boolean): string {
  const base = withoutFragment(url);
  const question = base.indexOf('?');
  if (question === -1) return base;
  const kept = base
    .slice(question + 1)
    .split('&')
    .filter((pair) => pair.length > 0 && !drop(pair.split('=')[0]!));
  return kept.length === 0 ? base.slice(0, question) : `${base.slice(0, question)}?${kept.join('&')}`;
}

// Sets one parameter, replacing any the URL has.
export function withParameter(url: string, key: string, value: string): string {
  return appendParameters(
    withoutParameters(url, (name) => safeDecode(name) === key),
    [[key, value]],
  );
}

// The URL as every message shows it: no password from the URL or the environment.
export function shownUrl(url: string, env: NodeJS.ProcessEnv = process.env): string {
  return redactText(redactUrl(url), secretsOf(url, env));
}

// The URL with no password in it at all (not even `***`): what a clone records in its git config.
export function withoutPassword(url: string): string {
  const { scheme, userinfo, rest } = splitUrl(url);
  const colon = userinfo?.indexOf(':') ?? -1;
  const bare = userinfo !== undefined && colon !== -1 ? `${scheme}${userinfo.slice(0, colon)}@${rest}` : url;
  return bare.replace(/([?&])password=[^&#]*&?/gi, '$1').replace(/[?&]$/, '');
}
