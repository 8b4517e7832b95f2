// A small POSIX/bash lexer: command text → words, operators and redirections, heredoc bodies attached.
// It reads what decides which files a command writes (quotes, escapes, `$'…'`, expansions, heredocs) and
// nothing else: an expansion is not evaluated, the word is only marked as not literal.

export interface Word {
  kind: 'word';
  /** The word after quote removal, or undefined when it holds an expansion ($x, $(…), `…`, ~user). */
  value: string | undefined;
  /** The word as a glob: quoted glob characters escaped, unquoted ones kept; set when `glob` is. */
  pattern: string;
  /** An unquoted *, ? or [ (or a brace list): the shell would expand it against the disk. */
  glob: boolean;
  /** Some part of the word was quoted or escaped (so `{`, `}` or a keyword in it are plain words). */
  quoted: boolean;
}

export type Operator = ';' | '&&' | '||' | '|' | '|&' | '&' | '(' | ')' | '\n' | ';;';

export interface Redirect {
  kind: 'redirect';
  /** >, >>, >|, &>, &>>, <, <<, <<-, <<<, <>, >&, <& */
  op: string;
  /** The file descriptor written before the operator (`2>`), if any. */
  fd: number | undefined;
  /** The target word (for a heredoc: its delimiter). */
  target: Word | undefined;
  /** A heredoc's body, once the line after it has been read. */
  body?: string;
}

export type Token = Word | { kind: 'op'; op: Operator } | Redirect;

export type LexResult = { ok: true; tokens: Token[] } | { ok: false; why: string };

// Past this a command is not read at all (it is left to the after-command restore).
export const MAX_COMMAND_CHARS = 100_000;

const META = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>']);
const GLOB_CHARS = new Set(['*', '?', '[']);

export function lex(text: string, home: string | undefined): LexResult {
  if (text.length > MAX_COMMAND_CHARS) return { ok: false, why: `the command is longer than ${MAX_COMMAND_CHARS} characters` };
  return new Lexer(text, home).run();
}

class LexError extends Error {}

class Lexer {
  private i = 0;
  private readonly tokens: Token[] = [];
  private readonly pendingHeredocs: Redirect[] = [];

  constructor(
    private readonly s: string,
    private readonly home: string | undefined,
  ) {}

  run(): LexResult {
    try {
      this.scan();
      return { ok: true, tokens: this.tokens };
    } catch (error) {
      if (error instanceof LexError) return { ok: false, why: error.message };
      throw error;
    }
  }

  private scan(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === ' ' || c === '\t') {
        this.i++;
      } else if (c === '\\' && s[this.i + 1] === '\n') {
        this.i += 2;
      } else if (c === '\n') {
        this.i++;
        this.tokens.push({ kind: 'op', op: '\n' });
        this.readHeredocBodies();
      } else if (c === '#') {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
      } else if (c === ';') {
        this.op(s[this.i + 1] === ';' ? ';;' : ';');
      } else if (c === '&') {
        if (s[this.i + 1] === '&') this.op('&&');
        else if (s[this.i + 1] === '>') this.redirect(s[this.i + 2] === '>' ? '&>>' : '&>', undefined);
        else this.op('&');
      } else if (c === '|') {
        this.op(s[this.i + 1] === '|' ? '||' : s[this.i + 1] === '&' ? '|&' : '|');
      } else if (c === '(' || c === ')') {
        this.op(c);
      } else if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
        this.tokens.push(this.word()); // process substitution: a word that is not literal
      } else if (c === '<' || c === '>') {
        this.redirect(this.redirectOperator(), undefined);
      } else {
        const start = this.i;
        const word = this.word();
        // `2>file`: a word of digits glued to a redirection is its file descriptor.
        if (/^[0-9]+$/.test(s.slice(start, this.i)) && (s[this.i] === '<' || s[this.i] === '>') && s[this.i + 1] !== '(') {
          this.redirect(this.redirectOperator(), Number(s.slice(start, this.i)));
        } else {
          this.tokens.push(word);
        }
      }
    }
    // A heredoc whose body never came (no newline after it): bash reads to the end, which is nothing here.
    for (const redirect of this.pendingHeredocs.splice(0)) redirect.body = '';
  }

  private op(op: Operator): void {
    this.i += op.length;
    this.tokens.push({ kind: 'op', op });
  }

  private redirectOperator(): string {
    const s = this.s.slice(this.i, this.i + 3);
    for (const op of ['<<<', '<<-', '<<', '>>', '>|', '>&', '<&', '<>', '>', '<']) if (s.startsWith(op)) return op;
    throw new LexError('unreachable redirection');
  }

  private redirect(op: string, fd: number | undefined): void {
    this.i += op.length; // a file descriptor's digits were read as the word before
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i++;
    const next = this.s[this.i];
    const target = next === undefined || META.has(next) ? undefined : this.word();
    const redirect: Redirect = { kind: 'redirect', op, fd, target };
    if (op === '<<' || op === '<<-') this.pendingHeredocs.push(redirect);
    this.tokens.push(redirect);
  }

  // The bodies of the heredocs opened on the line just ended, in order.
  private readHeredocBodies(): void {
    for (const redirect of this.pendingHeredocs.splice(0)) {
      const delimiter = redirect.target?.value ?? redirect.target?.pattern ?? '';
      const lines: string[] = [];
      let closed = false;
      while (this.i < this.s.length) {
        const end = this.s.indexOf('\n', this.i);
        const line = this.s.slice(this.i, end === -1 ? this.s.length : end);
        this.i = end === -1 ? this.s.length : end + 1;
        const compared = redirect.op === '<<-' ? line.replace(/^\t+/, '') : line;
        if (compared === delimiter) {
          closed = true;
          break;
        }
        lines.push(compared);
      }
      redirect.body = lines.join('\n') + (lines.length > 0 && closed ? '\n' : '');
    }
  }

  // One word: runs of unquoted text, quotes, escapes and expansions, up to an unquoted metacharacter.
  private word(): Word {
    const s = this.s;
    let value = '';
    let pattern = '';
    let literal = true;
    let glob = false;
    let quoted = false;
    // Text that stands for itself: any glob character in it is escaped in the pattern.
    const addLiteral = (text: string): void => {
      value += text;
      pattern += text.replace(/[\\*?[\]{}]/g, '\\$&');
    };
    const start = this.i;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (META.has(c)) {
        if ((c === '<' || c === '>') && s[this.i + 1] === '(' && this.i === start) {
          this.i += 1;
          this.skipBalanced('(', ')');
          literal = false;
          continue;
        }
        break;
      }
      if (c === '\\') {
        quoted = true;
        const next = s[this.i + 1];
        this.i += 2;
        if (next === undefined) break;
        if (next === '\n') continue;
        addLiteral(next);
      } else if (c === "'") {
        quoted = true;
        addLiteral(s.slice(this.i + 1, this.skipSingleQuoted() - 1));
      } else if (c === '$' && s[this.i + 1] === "'") {
        quoted = true;
        const decoded = this.ansiC();
        if (decoded === undefined) literal = false;
        else addLiteral(decoded);
      } else if (c === '"') {
        quoted = true;
        const inner = this.doubleQuoted();
        if (inner === undefined) literal = false;
        else addLiteral(inner);
      } else if (c === '$' || c === '`') {
        if (c === '$' && (this.i + 1 >= s.length || META.has(s[this.i + 1]!) || s[this.i + 1] === '"')) {
          // a lone `$` is itself (`$"…"` is a translated string: the quotes follow)
          this.i++;
          if (s[this.i] !== '"') {
            value += '$';
            pattern += '$';
          }
          continue;
        }
        this.expansion();
        literal = false;
      } else if (c === '~' && this.i === start) {
        const end = this.tildeEnd();
        if (end === this.i + 1 && this.home !== undefined) {
          addLiteral(this.home);
          this.i++;
        } else {
          literal = false; // ~user, or no home known
          this.i = end;
        }
      } else {
        if (GLOB_CHARS.has(c) || (c === '{' && this.braceList())) glob = true;
        value += c;
        pattern += c;
        this.i++;
      }
    }
    return { kind: 'word', value: literal ? value : undefined, pattern, glob, quoted };
  }

  private tildeEnd(): number {
    let end = this.i + 1;
    while (end < this.s.length && !META.has(this.s[end]!) && this.s[end] !== '/') end++;
    return end;
  }

  // `{a,b}` or `{1..3}` unquoted: brace expansion, read as a glob.
  private braceList(): boolean {
    const close = this.s.indexOf('}', this.i);
    if (close === -1) return false;
    const inner = this.s.slice(this.i + 1, close);
    return !/[\s;&|<>()'"]/.test(inner) && (inner.includes(',') || inner.includes('..'));
  }

  // "…": backslash escapes only $ ` " \ and newline; any expansion makes the word not literal.
  private doubleQuoted(): string | undefined {
    const s = this.s;
    let out = '';
    let literal = true;
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '"') {
        this.i++;
        return literal ? out : undefined;
      }
      if (c === '\\') {
        const next = s[this.i + 1];
        if (next === undefined) break;
        if (next === '\n') {
          this.i += 2;
          continue;
        }
        out += '$`"\\'.includes(next) ? next : `\\${next}`;
        this.i += 2;
      } else if (c === '`' || (c === '$' && this.i + 1 < s.length && /[A-Za-z0-9_{(@*#?$!-]/.test(s[this.i + 1]!))) {
        this.expansion();
        literal = false;
      } else {
        out += c;
        this.i++;
      }
    }
    throw new LexError('an unterminated double quote');
  }

  // $'…' (ANSI-C quoting): the common escapes decoded; \c and unknown forms make the word not literal.
  private ansiC(): string | undefined {
    const s = this.s;
    let out = '';
    let literal = true;
    this.i += 2;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === "'") {
        this.i++;
        return literal ? out : undefined;
      }
      if (c !== '\\') {
        out += c;
        this.i++;
        continue;
      }
      const next = s[this.i + 1];
      if (next === undefined) break;
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
      if (simple[next] !== undefined) {
        out += simple[next];
        this.i += 2;
      } else if (next === 'x') {
        const hex = /^[0-9a-fA-F]{1,2}/.exec(s.slice(this.i + 2))?.[0] ?? '';
        if (hex === '') literal = false;
        else out += String.fromCharCode(parseInt(hex, 16));
        this.i += 2 + hex.length;
      } else if (/[0-7]/.test(next)) {
        const oct = /^[0-7]{1,3}/.exec(s.slice(this.i + 1))![0];
        out += String.fromCharCode(parseInt(oct, 8));
        this.i += 1 + oct.length;
      } else if (next === 'u' || next === 'U') {
        const hex = new RegExp(`^[0-9a-fA-F]{1,${next === 'u' ? 4 : 8}}`).exec(s.slice(this.i + 2))?.[0] ?? '';
        const code = hex === '' ? NaN : parseInt(hex, 16);
        if (Number.isNaN(code) || code > 0x10ffff) literal = false;
        else out += String.fromCodePoint(code);
        this.i += 2 + hex.length;
      } else {
        literal = false; // \cX and the like: not worth decoding
        this.i += 2;
      }
    }
    throw new LexError("an unterminated $'…' quote");
  }

  // $name, ${…}, $(…), $((…)), `…`: skipped whole, never evaluated.
  private expansion(): void {
    const s = this.s;
    if (s[this.i] === '`') {
      this.i++;
      while (this.i < s.length && s[this.i] !== '`') this.i += s[this.i] === '\\' ? 2 : 1;
      if (this.i >= s.length) throw new LexError('an unterminated backquote');
      this.i++;
      return;
    }
    this.i++; // the $
    const c = s[this.i];
    if (c === '(') this.skipBalanced('(', ')');
    else if (c === '{') this.skipBalanced('{', '}');
    else if (c !== undefined && /[A-Za-z_]/.test(c)) while (this.i < s.length && /[A-Za-z0-9_]/.test(s[this.i]!)) this.i++;
    else this.i++; // $1, $@, $?, $$ …
  }

  // '…': past the closing quote, whose index + 1 it returns.
  private skipSingleQuoted(): number {
    const end = this.s.indexOf("'", this.i + 1);
    if (end === -1) throw new LexError('an unterminated single quote');
    return (this.i = end + 1);
  }

  // From an opening bracket to its match, stepping over quotes and nested expansions inside.
  private skipBalanced(open: string, close: string): void {
    const s = this.s;
    let depth = 0;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === '\\') this.i += 2;
      else if (c === "'") this.skipSingleQuoted();
      else if (c === '"') this.doubleQuoted();
      else if (c === '`') this.expansion();
      else {
        if (c === open) depth++;
        else if (c === close) depth--;
        this.i++;
        if (depth === 0) return;
      }
    }
    throw new LexError(`an unterminated ${open}…${close}`);
  }
}
