// ic's SQL is written with `?` placeholders (SQLite's); PostgreSQL numbers them `$1 … $n`. A `?` inside a
// string literal ('…', E'…'), a quoted identifier ("…"), a dollar-quoted body ($tag$…$tag$) or a comment
// (-- …, /* … */, nested) is text, not a placeholder, and is left as it is.
// ic's statements use no jsonb `?` operators: such SQL must spell them as functions (jsonb_exists).

const cache = new Map<string, { sql: string; count: number }>();

export function numberPlaceholders(sql: string): { sql: string; count: number } {
  const known = cache.get(sql);
  if (known) return known;
  const result = rewrite(sql);
  cache.set(sql, result);
  return result;
}

function rewrite(sql: string): { sql: string; count: number } {
  let out = '';
  let count = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    const next = sql[i + 1];
    if (ch === '?') {
      out += `$${++count}`;
      i += 1;
    } else if (ch === "'") {
      const escapes = i > 0 && /[eE]/.test(sql[i - 1]!) && !/[\w$]/.test(sql[i - 2] ?? ' ');
      const end = endOfQuoted(sql, i, "'", escapes);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '"') {
      const end = endOfQuoted(sql, i, '"', false);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '-' && next === '-') {
      const newline = sql.indexOf('\n', i);
      const end = newline === -1 ? sql.length : newline;
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '/' && next === '*') {
      const end = endOfBlockComment(sql, i);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '$' && !/[\w$]/.test(sql[i - 1] ?? ' ')) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const close = sql.indexOf(tag[0], i + tag[0].length);
        const end = close === -1 ? sql.length : close + tag[0].length;
        out += sql.slice(i, end);
        i = end;
      } else {
        out += ch;
        i += 1;
      }
    } else {
      out += ch;
      i += 1;
    }
  }
  return { sql: out, count };
}

// The index just past a quoted run that starts at `start` (a doubled quote is an escaped quote; in E'…' a
// backslash escapes the next character too). An unterminated run ends the text: the server reports it.
function endOfQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (backslashEscapes && ch === '\\') {
      i += 2;
    } else if (ch === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i += 1;
    }
  }
  return sql.length;
}

function endOfBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth += 1;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else {
      i += 1;
    }
  }
  return sql.length;
}
