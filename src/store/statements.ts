import type { Connection, Sql, Statement } from './connection';

// The store's statements, each prepared once per connection (the connection keeps the cache).
export function statement(db: Connection, sql: Sql): Statement {
  return db.prepare(sql);
}
