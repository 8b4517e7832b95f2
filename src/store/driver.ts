import type DatabaseConstructor from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

let addonPath: string | undefined;

// Where better-sqlite3's compiled addon is. Naming it directly skips the `bindings` package's search of
// a dozen candidate paths on every start: beside the bundle first, else wherever Node resolves the package.
function nativeBindingPath(): string {
  if (addonPath) return addonPath;
  const besideBundle = join(__dirname, '..', 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
  addonPath = existsSync(besideBundle) ? besideBundle : join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node');
  return addonPath;
}

// better-sqlite3's JavaScript runs at the first SQLite open, not when the bundle loads: a hook on a server
// never opens one (its module bodies were ~0.5 ms of every such hook).
let Database: typeof DatabaseConstructor | undefined;

// Every connection ic opens goes through here, so they all load the addon the same (fast) way.
export function openSqlite(path: string, options: { timeout?: number; fileMustExist?: boolean; readonly?: boolean } = {}): DatabaseConstructor.Database {
  Database ??= require('better-sqlite3') as typeof DatabaseConstructor;
  return new Database(path, { ...options, nativeBinding: nativeBindingPath() });
}
