import type { Atom } from './parse';

const ALWAYS_ESCAPED = new Set(['\\', '*', '?', '[', ']', '{', '}']);
const CLASS_ESCAPED = new Set(['\\', ']', '[', '-', '!', '^']);

// Writes atoms back as canonical pattern text: needless escapes dropped, needed ones kept, so equal
// patterns compare equal as strings (a renewal finds its own row).
export function formatAtoms(atoms: readonly Atom[]): string {
  return formatSequence(atoms, false, true);
}

// Formats one sequence; `inBrace` makes `,` special, `atStart` makes a leading `!` special.
function formatSequence(atoms: readonly Atom[], inBrace: boolean, atStart: boolean): string {
  let out = '';
  let prev = '';
  for (const atom of atoms) {
    let text: string;
    switch (atom.kind) {
      case 'char': {
        const ch = String.fromCodePoint(atom.cp);
        const escape = ALWAYS_ESCAPED.has(ch) || (inBrace && ch === ',') || (atStart && out === '' && ch === '!') || (ch === '(' && '+@!*?'.includes(prev) && prev !== '');
        text = escape ? `\\${ch}` : ch;
        break;
      }
      case 'any':
        text = '?';
        break;
      case 'star':
        text = '*';
        break;
      case 'slash':
        text = '/';
        break;
      case 'class':
        text = `[${atom.negated ? '!' : ''}${atom.ranges.map(formatRange).join('')}]`;
        break;
      case 'brace':
        text = `{${atom.alternatives.map((alt) => formatSequence(alt, true, false)).join(',')}}`;
        break;
    }
    out += text;
    prev = text.length === 1 ? text : '';
  }
  return out;
}

// One class member or range, escaping what the class syntax would otherwise read.
function formatRange([lo, hi]: readonly [number, number]): string {
  const one = (cp: number): string => {
    const ch = String.fromCodePoint(cp);
    return CLASS_ESCAPED.has(ch) ? `\\${ch}` : ch;
  };
  return lo === hi ? one(lo) : `${one(lo)}-${one(hi)}`;
}
