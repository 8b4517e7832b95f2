import { statSync } from 'node:fs';
import { recordScopeName, scopeNameOf } from '../store/scope-names';
import { EVERYTHING, type Connection } from '../store/connection';

// A directory's identity whatever path reaches it (symlink, bind mount, container): device and inode.
export function directoryIdentity(dir: string): string | undefined {
  try {
    const stat = statSync(dir, { bigint: true });
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

// The key a scope directory's locks are stored under: the spelling first recorded for its identity, so a
// work tree reached through a bind mount (host and devcontainer) is one scope, not two. A writer records
// its own spelling when the directory has none yet; a reader uses what is recorded, else its own spelling.
export function scopeKey(db: Connection, dir: string, write: boolean): string {
  const identity = directoryIdentity(dir);
  if (identity === undefined) return dir;
  const known = recordedKey(db, identity, dir);
  if (known !== undefined || !write) return known ?? dir;
  // Checked again under the write lock: two first writers through two spellings must agree on one.
  // Before the scope has a key there is no scope to lock by; the names table is shared by every scope.
  return db.write(EVERYTHING, () => {
    const now = recordedKey(db, identity, dir);
    if (now !== undefined) return now;
    recordScopeName(db, identity, dir);
    return dir;
  });
}

// A recorded spelling still names this directory when it cannot be reached from here (another mount
// namespace) or reaches this very directory; one that reaches another directory is stale (inode reused).
function recordedKey(db: Connection, identity: string, dir: string): string | undefined {
  const stored = scopeNameOf(db, identity);
  if (stored === undefined || stored === dir) return stored;
  const there = directoryIdentity(stored);
  return there === undefined || there === identity ? stored : undefined;
}
