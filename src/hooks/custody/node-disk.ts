import { readFileSync, statSync } from 'node:fs';
import type { Disk } from '../../core/shell/index';

// What the shell reader may ask of the disk: whether a path exists or is a directory, and a patch file's text.
export const NODE_DISK: Disk = {
  exists: (path) => statSync(path, { throwIfNoEntry: false }) !== undefined,
  isDirectory: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() === true,
  // A patch file the command applies: read when it is small (a huge one is left to the restore).
  readFile: (path) => {
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      return stat?.isFile() && stat.size <= 1_000_000 ? readFileSync(path, 'utf8') : undefined;
    } catch {
      return undefined;
    }
  },
};
