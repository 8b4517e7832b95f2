-- A consumer's cursor is (transaction, event id) on PostgreSQL: event ids come from a sequence and two scopes
-- commit out of id order, in ways the finished-transactions bound alone cannot order (docs/postgres.md, "Ids
-- in commit order"). NULL: a cursor saved before this column, read as the transaction of its event.
ALTER TABLE consumers ADD COLUMN last_xact xid8;
