-- One directory reached by two paths (a bind mount, a devcontainer beside its host) is one scope. A scope's
-- key in locks and events is the first spelling written; this table finds it again from the directory's
-- identity (its device and inode, which every path to it shares), so the second spelling uses the first.
-- (Numbered 0005: 0002-0004 are other changes of this release, on other branches.)
CREATE TABLE scope_names (
  -- "<st_dev>:<st_ino>" of the scope directory, as decimal integers.
  identity TEXT PRIMARY KEY,
  scope    TEXT NOT NULL UNIQUE
) STRICT;
