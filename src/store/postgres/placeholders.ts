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
  let from = 0; // the text from here up to the next placeholder is copied as one piece
  for (let i = 0; i < sql.length;) {
    if (sql[i] !== '?') i = endOfText(sql, i);
    else {
      out += `${sql.slice(from, i)}$${++count}`;
      from = ++i;
    }
  }
  return { sql: out + sql.slice(from), count };
}

const DOLLAR_TAG = /\$([A-Za-z_][A-Za-z0-9_]*)?\$/y;

// The index just past what starts at `i` when that is text a `?` inside of is no placeholder (a quoted run, a
// comment, a dollar-quoted body), else just past the character at `i`.
function endOfText(sql: string, i: number): number {
  const ch = sql[i];
  const next = sql[i + 1];
  if (ch === "'") return endOfQuoted(sql, i, "'", i > 0 && /[eE]/.test(sql[i - 1]!) && !/[\w$]/.test(sql[i - 2] ?? ' '));
  if (ch === '"') return endOfQuoted(sql, i, '"', false);
  if (ch === '-' && next === '-') {
    const newline = sql.indexOf('\n', i);
    return newline === -1 ? sql.length : newline;
  }
  if (ch === '/' && next === '*') return endOfBlockComment(sql, i);
  if (ch === '$' && !/[\w$]/.test(sql[i - 1] ?? ' ')) {
    DOLLAR_TAG.lastIndex = i;
    const tag = DOLLAR_TAG.exec(sql);
    if (tag) {
      const close = sql.indexOf(tag[0], i + tag[0].length);
      return close === -1 ? sql.length : close + tag[0].length;
    }
  }
  return i + 1;
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
