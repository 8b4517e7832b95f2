import { lstatSync, readdirSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

// The entries of `dir` older than `before` go: a file by one unlink (rmSync would load Node's rimraf for
// it), a directory with all it holds. An entry's age is `ageOf` (a time it records), else its stat's newest
// of mtime and ctime. Returns how many went (would go, with `dryRun`); a missing dir is none.
export function removeStale(dir: string, before: number, options: { ageOf?: (path: string, name: string) => number | undefined; dryRun?: boolean } = {}): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if ((options.ageOf?.(path, name) ?? Math.max(st.mtimeMs, st.ctimeMs)) >= before) continue;
      if (!options.dryRun) {
        if (st.isDirectory()) rmSync(path, { recursive: true, force: true });
        else unlinkSync(path);
      }
      removed++;
    } catch {
      // gone meanwhile
    }
  }
  return removed;
}
