import { readFileSync, statSync } from 'node:fs';

// libpq's password file (`passfile=`, PGPASSFILE, else ~/.pgpass), read here when the server asks for a password: pg's
// own reading of it is deprecated and warns on every call (pg's documented way is a password function).
// libpq's rules: lines host:port:database:user:password, `*` matches anything, `\` escapes `:` and `\`, a
// socket connection matches `localhost`; a file others may read is ignored, with libpq's warning.
export function passwordFromFile(file: string | undefined, host: string, port: number, database: string, user: string): string | undefined {
  let text: string;
  try {
    const stat = statSync(file!);
    if (!stat.isFile()) return warn(`WARNING: password file "${file}" is not a plain file`);
    if (stat.mode & 0o077) return warn(`WARNING: password file "${file}" has group or world access; permissions should be u=rw (0600) or less`);
    text = readFileSync(file!, 'utf8');
  } catch {
    return undefined; // no file: libpq says nothing either
  }
  const wanted = [host.startsWith('/') ? 'localhost' : host, String(port), database, user];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('#')) continue;
    const fields = fieldsOf(line);
    if (fields.length >= 5 && wanted.every((value, at) => fields[at] === '*' || fields[at] === value)) return fields[4];
  }
  return undefined;
}

// The line's fields, split at each `:` not escaped, unescaped.
function fieldsOf(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  for (let at = 0; at < line.length; at += 1) {
    if (line[at] !== ':') {
      field += line[at] === '\\' && at + 1 < line.length ? line[++at] : line[at];
      continue;
    }
    fields.push(field);
    field = '';
  }
  return [...fields, field];
}

function warn(text: string): undefined {
  process.stderr.write(`${text}\n`);
  return undefined;
}
