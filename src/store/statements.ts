import type { Statement } from './connection';

// A write inside a transaction whose result nobody reads: an engine that can sends it with the next statement
// (its error then fails that one, and so the transaction); SQLite runs it at once.
export async function runWithoutResult(prepared: Statement, ...params: unknown[]): Promise<void> {
  if (prepared.runLater) prepared.runLater(...params);
  else await prepared.run(...params);
}
