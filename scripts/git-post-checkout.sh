#!/usr/bin/env bash
# ic-commit-guard (post-checkout): when `git worktree add` creates a linked work tree, install there the
# agent hooks (Claude Code, Codex, with Codex's trust) that the main work tree has, so agents in the new
# work tree are coordinated too. Any other checkout returns at once.
# Written by `ic coord install --git`; `ic coord uninstall --git` removes it and restores the hook it replaced.
set -uo pipefail

# Filled in by the installer: the absolute path of ic (single-quoted) and how to call the replaced hook.
ic_bin='ic'
chain_mode='exec'
previous="$(dirname -- "$0")/post-checkout.ic-backup"

status=0
if [ -x "$previous" ]; then
  if [ "$chain_mode" = same-name ]; then
    # shellcheck disable=SC2016 # expanded by the inner sh, not here
    sh -c 'previous=$1; shift; . "$previous"' "$0" "$previous" "$@" || status=$?
  else
    "$previous" "$@" || status=$?
  fi
fi

# A new work tree checks out from the null commit.
case "${1:-}" in
  0000000000000000000000000000000000000000 | 0000000000000000000000000000000000000000000000000000000000000000)
    "$ic_bin" coord hook git-post-checkout </dev/null || echo "ic: warning: ic's agent hooks were not installed in this work tree ($ic_bin exited with $?); run: ic coord install" >&2
    ;;
esac
exit "$status"
