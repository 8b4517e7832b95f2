import { statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { IcError } from '../../core/errors';
import { describeFileType } from '../../store/db-file';

// Install and doctor read and write files people and other tools also own: .claude/, .codex/, git's hooks
// directory, $CODEX_HOME. Each is checked for its type before it is opened, so a FIFO cannot hang ic and a
// file where a directory belongs (or the reverse) is a clear INVALID_INPUT (65) naming the path, before
// anything is written, never an internal error.

// Throws INVALID_INPUT unless `file` can be written as a regular file: every existing ancestor a
// directory, and the file itself, if present, a regular file (or a link to one).
export function checkWritableFile(file: string, why: (path: string) => string = () => ''): void {
  const stat = statIfAny(file);
  if (stat !== undefined && !stat.isFile()) {
    throw new IcError('INVALID_INPUT', `${file} is ${describeFileType(stat)}, not a file, so ic cannot write its hooks there${why(file)}; move it aside and run the installer again`, { path: file });
  }
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const parent = statIfAny(dir);
    if (parent !== undefined && !parent.isDirectory()) {
      throw new IcError('INVALID_INPUT', `${dir} is ${describeFileType(parent)}, not a directory, so ic cannot write ${file}${why(dir)}; move it aside and run the installer again`, { path: dir });
    }
    if (parent !== undefined || dirname(dir) === dir) return;
  }
}

// Undefined when nothing is there, including under a parent that is not a directory (ENOTDIR).
function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}
