import type { SqliteConnection } from './sqlite-connection';

// A hook process opens its database more than once (the liveness step, then the hook's own work, then the
// custody view): each open costs a file check, SQLite's schema parse and the pragmas. In a hook process
// (and only there: a CLI call or a test may close a database and expect it gone) those opens share one
// connection per file and mode, closed at the hook's end (closeSharedConnections).
let sharing = false;
const connections = new Map<string, SqliteConnection>();

export function shareConnections(): void {
  sharing = true;
}

/** True in a hook process: connections are kept for the process's next open (PostgreSQL's too: postgres/open.ts). */
export function sharingConnections(): boolean {
  return sharing;
}

function keyOf(path: string, write: boolean): string {
  return `${write ? 'w' : 'r'}\0${path}`;
}

// The open connection to reuse, if there is one (the caller sets its own busy timeout on it).
export function sharedConnection(path: string, write: boolean): SqliteConnection | undefined {
  if (!sharing) return undefined;
  const connection = connections.get(keyOf(path, write));
  return connection !== undefined && connection.sqlite.open && !connection.sqlite.inTransaction ? connection : undefined;
}

// Keeps a freshly opened connection for the next open of the same file; its close() then does nothing.
export function keepShared(path: string, write: boolean, connection: SqliteConnection): SqliteConnection {
  if (!sharing || connections.has(keyOf(path, write))) return connection;
  connections.set(keyOf(path, write), connection);
  connection.close = () => undefined;
  return connection;
}

// Closes the kept SQLite connections, before a hook process exits without Node's teardown (which is where
// better-sqlite3 would close them): the last connection's close checkpoints the WAL into the database file,
// whose header is how ic tells a database from an empty file (store/db-file.ts). A server's connection
// needs nothing: the exit closes its socket, as a natural exit does.
export function closeSharedConnections(): void {
  for (const connection of connections.values()) {
    try {
      if (connection.sqlite.open) connection.sqlite.close();
    } catch {
      // closing is best effort: the WAL stays valid and the next connection recovers it
    }
  }
  connections.clear();
}
