import type { Connection } from './connection';
import { statement } from './statements';

// The stored key of the scope whose directory has this identity (schema/0005_scope_names.sql).
export function scopeNameOf(db: Connection, identity: string): string | undefined {
  const row = statement(db, 'SELECT scope FROM scope_names WHERE identity = ?').get(identity) as { scope: string } | undefined;
  return row?.scope;
}

// Records `scope` as the key of the directory with this identity, replacing a stale row for either (a
// directory that is gone and whose inode was reused, a device renumbered at boot).
export function recordScopeName(db: Connection, identity: string, scope: string): void {
  statement(db, 'DELETE FROM scope_names WHERE identity = ? OR scope = ?').run(identity, scope);
  statement(db, 'INSERT INTO scope_names (identity, scope) VALUES (?, ?)').run(identity, scope);
}
