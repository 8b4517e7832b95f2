import { join } from 'node:path';
import { findGitInfo } from '../../store/discover';
import { readIfExists } from './git-hook';

// The agent hook files the installer creates in a work tree are personal (they name this machine's ic), so
// `git add -A` must not pick them up: they are listed in the repository's .git/info/exclude, inside one
// marked block. Uninstall takes entries out, and the block with its last entry, leaving the file as it was.
const BEGIN = '# >>> ic coord install: agent hook files (removed by ic coord uninstall)';
const BEGIN_JOINED = '# >>> ic coord install: agent hook files (removed by ic coord uninstall; it added the line break above)';
const END = '# <<< ic coord install';

export function excludeFile(projectRoot: string): string | undefined {
  const git = findGitInfo(projectRoot);
  return git ? join(git.commonDir, 'info', 'exclude') : undefined;
}

interface Parsed {
  /** The text before the block and after it (the whole text when there is no block). */
  before: string;
  after: string;
  entries: string[];
  /** The block was appended to a last line without a line break, and added one. */
  joined: boolean;
}

function parse(text: string): Parsed {
  const match = new RegExp(`(^|\\n)(${escape(BEGIN)}|${escape(BEGIN_JOINED)})\\n([^]*?)${escape(END)}(\\n|$)`).exec(text);
  if (!match) return { before: text, after: '', entries: [], joined: false };
  const start = match.index + match[1]!.length;
  return {
    before: text.slice(0, start),
    after: text.slice(match.index + match[0].length),
    entries: match[3]!.split('\n').filter((line) => line !== ''),
    joined: match[2] === BEGIN_JOINED,
  };
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// The exclude file's text with `add` listed and `remove` not (the same text when nothing changes);
// undefined when nothing is left of a file the block alone made.
export function withExcludes(text: string | undefined, add: readonly string[], remove: readonly string[]): string | undefined {
  const parsed = parse(text ?? '');
  const entries = parsed.entries.filter((entry) => !remove.includes(entry));
  for (const entry of add) if (!entries.includes(entry)) entries.push(entry);
  if (entries.join('\n') === parsed.entries.join('\n')) return text;
  if (entries.length === 0) {
    const rest = (parsed.joined ? parsed.before.replace(/\n$/, '') : parsed.before) + parsed.after;
    return rest === '' ? undefined : rest;
  }
  const fresh = parsed.entries.length === 0;
  const joined = fresh ? parsed.before !== '' && !parsed.before.endsWith('\n') : parsed.joined;
  const before = fresh && joined ? `${parsed.before}\n` : parsed.before;
  return `${before}${[joined ? BEGIN_JOINED : BEGIN, ...entries, END].join('\n')}\n${parsed.after}`;
}

export function excludeText(projectRoot: string): string | undefined {
  const file = excludeFile(projectRoot);
  return file === undefined ? undefined : readIfExists(file);
}
