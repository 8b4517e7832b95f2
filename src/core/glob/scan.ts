// Cheap text scans that need no parse: the literal base (the overlap prefilter) and literal/escape helpers.

const SPECIAL = new Set(['*', '?', '[', '{']);

// Splits pattern text into its leading literal segments (unescaped), stopping at the first segment holding
// a wildcard, class or brace; `complete` tells whether the whole pattern was literal.
function scanLiteralSegments(pattern: string): { segments: string[]; complete: boolean } {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '\\') {
      current += pattern[i + 1] ?? '';
      i++;
    } else if (ch === '/') {
      if (current !== '') segments.push(current);
      current = '';
    } else if (SPECIAL.has(ch)) {
      return { segments, complete: false };
    } else current += ch;
  }
  if (current !== '') segments.push(current);
  return { segments, complete: true };
}

// The leading literal segments as a path (`src/**/*.ts` → `src`); '' when the first segment is a glob.
// Two patterns whose bases diverge (neither is a segment prefix of the other) cannot overlap.
export function literalBase(pattern: string): string {
  return scanLiteralSegments(pattern).segments.join('/');
}

// True when the pattern names exactly one path (no wildcard, class or brace once escapes are read).
// Most patterns have no special character or escape at all: one regex test answers for them.
export function isLiteral(pattern: string): boolean {
  if (!/[*?[{\\]/.test(pattern)) return true;
  return scanLiteralSegments(pattern).complete;
}

// The path a literal pattern names: escapes removed.
export function unescapeLiteral(pattern: string): string {
  return pattern.replace(/\\(.)/gsu, '$1');
}

// Turns a concrete path into a pattern matching exactly it (`app/[id]` → `app/\[id\]`).
export function escapeLiteralPath(path: string): string {
  let out = path.replace(/[\\*?[\]{}]/g, '\\$&').replace(/([+@!])\(/g, '$1\\(');
  if (out.startsWith('!')) out = `\\${out}`;
  return out;
}

// The prefilter: true when the literal bases differ at some segment both have, so no path matches both.
export function basesDiverge(a: string, b: string): boolean {
  const x = scanLiteralSegments(a).segments;
  const y = scanLiteralSegments(b).segments;
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return true;
  return false;
}
