-- One directory reached by two paths (a bind mount, a devcontainer beside its host) is one scope. A scope's
-- key in locks and events is the first spelling written; this table finds it again from the directory's
-- identity (its device and inode, which every path to it shares), so the second spelling uses the first.
-- (Numbered 0003: 0002 is taken by another change of this release.)
CREATE TABLE scope_names (
  -- "<st_dev>:<st_ino>" of the scope directory, as decimal integers.
  identity TEXT PRIMARY KEY,
  scope    TEXT NOT NULL UNIQUE
) STRICT;
