import { isAbsolute, join, normalize } from 'node:path';
import { addPath, unreadable, type Disk, type Sink } from './targets';

// The files a patch changes: a unified diff's `---`/`+++` and `diff --git` headers (both sides, /dev/null
// left out), or an apply_patch envelope's `*** Add/Update/Delete File:` and `*** Move to:` lines.
const ENVELOPE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/;
const UNIFIED = /^(?:---|\+\+\+) (.+?)(?:\t.*)?$/;
const GIT_HEADER = /^diff --git a\/(.+) b\/(.+)$/;

/** `strip`: the -pN of patch / git apply; undefined reads `a/` and `b/` prefixes as git's (-p1), else -p0. */
export function patchPaths(text: string, strip: number | undefined): string[] {
  const paths: string[] = [];
  const add = (path: string) => {
    if (path !== '' && !paths.includes(path)) paths.push(path);
  };
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const envelope = ENVELOPE.exec(line);
    if (envelope) {
      add(envelope[1]!.trim());
      continue;
    }
    const git = GIT_HEADER.exec(line);
    if (git) {
      add(stripped(`a/${git[1]!}`, strip ?? 1));
      add(stripped(`b/${git[2]!}`, strip ?? 1));
      continue;
    }
    const unified = UNIFIED.exec(line);
    if (unified) {
      const path = unquote(unified[1]!.trim());
      if (path === '/dev/null') continue;
      add(stripped(path, strip ?? (/^[ab]\//.test(path) ? 1 : 0)));
    }
  }
  return paths;
}

export function patchTargets(sink: Sink, text: string, base: string | undefined, disk: Disk, strip: number | undefined): void {
  const paths = patchPaths(text, strip);
  if (paths.length === 0) return unreadable(sink, 'a patch with no file ic can name');
  for (const path of paths) addPath(sink, isAbsolute(path) || base === undefined ? path : normalize(join(base, path)), base, disk);
}

function stripped(path: string, strip: number): string {
  if (strip <= 0 || Number.isNaN(strip)) return path;
  return path.split('/').slice(strip).join('/');
}

// git quotes a path with odd characters: "a/sp\303\251cial"; only the quotes are removed here.
function unquote(path: string): string {
  return path.startsWith('"') && path.endsWith('"') ? path.slice(1, -1) : path;
}
