import { basename, isAbsolute, join, normalize } from 'node:path';
import type { Word } from './lex';

// What a command writes, as ic can name it before it runs.
export type ShellTarget =
  /** One file, by absolute path: reserved for the writer, refused when another owner holds it. */
  | { kind: 'file'; path: string }
  /**
   * Many files at once (`rm -r dir`, `rm src/*.ts`, `git checkout .`): checked against held locks but never
   * reserved. `pattern` is a glob relative to `dir`; with `repo`, relative to the root of the git
   * repository holding `dir` instead (`git stash`, `git reset --hard`).
   */
  | { kind: 'pattern'; dir: string; pattern: string; repo: boolean };

// What the reader may ask of the disk (injected, so the reader stays pure and testable).
export interface Disk {
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  readFile(path: string): string | undefined;
}

export interface Sink {
  targets: ShellTarget[];
  unreadable: string[];
}

export const WHOLE_TREE = '**';

// Notes a write ic cannot name before the command runs: reported, never guessed.
export function unreadable(sink: Sink, what: string): void {
  sink.unreadable.push(what);
}

// A word naming a file the command writes, relative to `cwd`: a file, a pattern for a glob, or an
// unreadable construct (an expansion, a relative path after a `cd` ic lost).
export function addWordTarget(sink: Sink, word: Word, cwd: string | undefined, disk: Disk, options: { tree?: boolean } = {}): void {
  if (word.value === undefined) return unreadable(sink, `a target ic cannot read before it runs: ${JSON.stringify(word.pattern)}`);
  if (word.glob) return addGlob(sink, word.pattern, cwd);
  addPath(sink, word.value, cwd, disk, options);
}

export function addPath(sink: Sink, path: string, cwd: string | undefined, disk: Disk, options: { tree?: boolean } = {}): void {
  if (path === '') return;
  if (!isAbsolute(path) && cwd === undefined) return unreadable(sink, `a relative path after a cd ic cannot follow: ${JSON.stringify(path)}`);
  const absolute = normalize(isAbsolute(path) ? path : join(cwd!, path));
  if (absolute === '/dev' || absolute.startsWith('/dev/') || absolute.startsWith('/proc/')) return; // 2>/dev/null
  if (options.tree && disk.isDirectory(absolute)) sink.targets.push({ kind: 'pattern', dir: absolute, pattern: WHOLE_TREE, repo: false });
  else sink.targets.push({ kind: 'file', path: absolute.length > 1 ? absolute.replace(/\/$/, '') : absolute });
}

export function addTree(sink: Sink, dir: string | undefined, repo: boolean): void {
  if (dir === undefined) sink.unreadable.push('a whole-tree write after a cd ic cannot follow');
  else sink.targets.push({ kind: 'pattern', dir: dir.length > 1 ? dir.replace(/\/+$/, '') : dir, pattern: WHOLE_TREE, repo });
}

// A glob word: its leading literal directories become `dir`, the rest the pattern.
function addGlob(sink: Sink, pattern: string, cwd: string | undefined): void {
  const absolute = pattern.startsWith('/');
  if (!absolute && cwd === undefined) return unreadable(sink, `a relative glob after a cd ic cannot follow: ${JSON.stringify(pattern)}`);
  const segments = pattern.split('/').filter((segment, i) => segment !== '' || i === 0);
  const literal: string[] = [];
  while (segments.length > 1 && !/(^|[^\\])[*?[{]/.test(segments[0]!)) literal.push(segments.shift()!.replace(/\\(.)/g, '$1'));
  const dir = normalize(absolute ? `/${literal.join('/')}` : join(cwd!, ...literal));
  if (segments.some((segment) => segment === '..' || segment === '.')) return unreadable(sink, `a glob with . or .. after its first wildcard: ${JSON.stringify(pattern)}`);
  sink.targets.push({ kind: 'pattern', dir, pattern: segments.join('/'), repo: false });
}

// cp/mv/install/ln's destination for one source: inside it when it is a directory (or said to be one).
export function addDestination(sink: Sink, dest: Word, sources: readonly Word[], cwd: string | undefined, disk: Disk, intoDir: boolean): void {
  if (dest.value === undefined || dest.glob) return addWordTarget(sink, dest, cwd, disk);
  if (!isAbsolute(dest.value) && cwd === undefined) return addPath(sink, dest.value, cwd, disk);
  const destPath = normalize(isAbsolute(dest.value) ? dest.value : join(cwd!, dest.value));
  const isDir = intoDir || dest.value.endsWith('/') || sources.length > 1 || disk.isDirectory(destPath);
  if (!isDir) {
    const source = sources[0]?.value;
    if (source !== undefined && cwd !== undefined && disk.isDirectory(normalize(isAbsolute(source) ? source : join(cwd, source)))) addTree(sink, destPath, false);
    else addPath(sink, destPath, cwd, disk);
    return;
  }
  for (const source of sources) {
    if (source.value === undefined || source.glob) addTree(sink, destPath, false);
    else {
      const sourcePath = normalize(isAbsolute(source.value) ? source.value : join(cwd ?? '/', source.value));
      const name = basename(sourcePath);
      if (name === '' || name === '.' || name === '..') addTree(sink, destPath, false);
      else if (disk.isDirectory(sourcePath)) addTree(sink, join(destPath, name), false);
      else addPath(sink, join(destPath, name), cwd, disk, { tree: true });
    }
  }
}

export function resolveDir(path: string, cwd: string | undefined): string | undefined {
  if (isAbsolute(path)) return normalize(path);
  return cwd === undefined ? undefined : normalize(join(cwd, path));
}

// What one program writes, read from its arguments. Programs not named here write nothing ic can see
// before they run (the after-command restore covers them).
export interface VerbContext {
  sink: Sink;
  cwd: string | undefined;
  disk: Disk;
  /** The text on the command's stdin when a heredoc or here-string gives it (patch, git apply). */
  stdin: string | undefined;
  /** Reads a nested script (`bash -c '…'`) in the same directory. */
  nested(script: string, cwd: string | undefined): void;
}
