-- Custody contents every clone can read (issue #38, item 4): on a server, a holder's recorded content lives in
-- the holder's clone's object store, and a restore in another clone needs it. Each recorded content up to
-- 1 MiB is copied here (base64, keyed by its git blob id) when custody records it; a restore that lacks a blob
-- locally takes it from here. Rows no live record names are removed by `coord sweep` after custody's
-- retention (docs/postgres.md, "Custody across clones").
CREATE TABLE custody_blobs (
  blob      TEXT COLLATE "C" PRIMARY KEY,
  size      BIGINT NOT NULL,
  content   TEXT COLLATE "C" NOT NULL,
  stored_at BIGINT NOT NULL
);
