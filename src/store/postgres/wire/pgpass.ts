// The password file libpq reads (~/.pgpass, or $PGPASSFILE): lines of host:port:database:user:password, `*`
// matching anything, `\` escaping `:` and `\`, the first matching line winning. Pure: the caller reads the file.

export interface PgpassQuery {
  host: string; // "localhost" for a unix socket, as libpq matches it
  port: string;
  database: string;
  user: string;
}

function fieldsOf(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (char === '\\' && index + 1 < line.length) current += line[++index];
    else if (char === ':' && fields.length < 4) {
      fields.push(current);
      current = '';
    } else current += char;
  }
  fields.push(current);
  return fields;
}

export function passwordFromPgpass(text: string, query: PgpassQuery): string | undefined {
  const wanted = [query.host, query.port, query.database, query.user];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    if (line === '' || line.startsWith('#')) continue;
    const fields = fieldsOf(line);
    if (fields.length !== 5) continue;
    if (wanted.every((value, index) => fields[index] === '*' || fields[index] === value)) return fields[4];
  }
  return undefined;
}
