import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

// The package's own files, found from the running code: the bundle is dist/ic.cjs (bin at ../bin/ic);
// tests run from src/, a few levels further down.
function packageFile(relativePath: string): string | undefined {
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, relativePath);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  return undefined;
}

// The absolute path of this package's bin/ic, symlinks resolved, so installed hooks work when ic is not on PATH.
export function icBinPath(argv1: string | undefined = process.argv[1]): string {
  if (argv1 && /(^|[\\/])(ic|coord)$/.test(argv1) && existsSync(argv1)) {
    const sibling = join(dirname(realpathSync(argv1)), 'ic');
    if (existsSync(sibling)) return realpathSync(sibling);
  }
  const bundled = packageFile(join('bin', 'ic'));
  if (bundled) return realpathSync(bundled);
  return resolve('ic');
}

export function scriptPath(name: string): string {
  const path = packageFile(join('scripts', name));
  if (!path) throw new Error(`the installer template scripts/${name} is missing from the ic package`);
  return path;
}
