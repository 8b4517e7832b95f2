// The messages between the store's synchronous session (worker-session.ts) and the driver's worker
// (worker.ts), which runs node-postgres. Plain data: they cross threads by structured clone.

export interface Statement {
  sql: string;
  // Undefined: the simple query protocol (several statements separated by `;`, no parameters).
  parameters?: readonly (string | null)[];
}

export type Request = { kind: 'connect'; url: string; env: Record<string, string | undefined>; connectTimeoutMs: number } | { kind: 'run'; statements: Statement[] } | { kind: 'close' };

export interface StatementResult {
  columns: { name: string; typeOid: number }[];
  rows: (string | null)[][];
  changes: number;
}

export interface ReplyError {
  message: string;
  sqlstate: string | undefined;
  // The connection is gone (or never came): not a statement the server refused.
  lost: boolean;
  // The server sent something that is not PostgreSQL's protocol.
  malformed: boolean;
  systemCode: string | undefined;
}

export interface Reply {
  // One per statement that ran, in order, up to the first that failed.
  results: StatementResult[];
  error: ReplyError | undefined;
  // The server's transaction state after the last reply: I idle, T in a transaction, E failed, or lost.
  state: 'I' | 'T' | 'E' | 'lost';
  serverVersion: number;
  tls: boolean;
}

// The shared word the worker bumps (and notifies) once a reply is posted: the main thread waits on it.
export const REPLY_COUNTER = 0;
