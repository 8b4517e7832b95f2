#!/usr/bin/env bash
# ic-commit-guard (post-commit): records each commit as a `committed` event (sha, owner, paths) so other
# agents learn of it by reading the log, and moves a private staging area onto the new HEAD.
# Written by `ic coord install --git-index`; `ic coord uninstall --git` removes it and restores the hook it replaced.
set -uo pipefail

# Filled in by the installer: the absolute path of ic (single-quoted) and how to call the replaced hook.
ic_bin='ic'
chain_mode='exec'
previous="$(dirname -- "$0")/post-commit.ic-backup"

if [ -x "$previous" ]; then
  if [ "$chain_mode" = same-name ]; then
    # shellcheck disable=SC2016 # expanded by the inner sh, not here
    sh -c 'previous=$1; shift; . "$previous"' "$0" "$previous" "$@" || true
  else
    "$previous" "$@" || true
  fi
fi

# A commit has happened whatever this says: never fail it.
# The package was removed before `ic coord uninstall`: one clear line instead of "exited with 127".
if ! command -v "$ic_bin" >/dev/null 2>&1; then
  # shellcheck disable=SC2016 # the backticks are meant literally
  echo 'ic is not installed: run `ic coord uninstall` or reinstall' >&2
  exit 0
fi

"$ic_bin" coord hook git-post-commit </dev/null || echo "ic: warning: the commit was not recorded ($ic_bin exited with $?)" >&2
exit 0
