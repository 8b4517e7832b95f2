#!/usr/bin/env bash
# ic-commit-guard (reference-transaction): before a branch moves, a commit made from a private staging area
# that another session's commit has overtaken may not put back what that commit changed. git runs this hook
# even for `git commit --no-verify`. Written by `ic coord install --git-index`; `ic coord uninstall --git`
# removes it and restores the hook it replaced. Every ref update runs it, so it returns at once unless a
# private staging area (GIT_INDEX_FILE under .../ic/index/) is in use and the update is being prepared.
set -uo pipefail

# Filled in by the installer: the absolute path of ic (single-quoted) and how to call the replaced hook.
ic_bin='ic'
chain_mode='exec'
previous="$(dirname -- "$0")/reference-transaction.ic-backup"

updates="$(cat)"

if [ -x "$previous" ]; then
  status=0
  if [ "$chain_mode" = same-name ]; then
    # shellcheck disable=SC2016 # expanded by the inner sh, not here
    printf '%s\n' "$updates" | sh -c 'previous=$1; shift; . "$previous"' "$0" "$previous" "$@" || status=$?
  else
    printf '%s\n' "$updates" | "$previous" "$@" || status=$?
  fi
  if [ "$status" -ne 0 ]; then
    exit "$status"
  fi
fi

case "${1:-}:${GIT_INDEX_FILE:-}" in
  prepared:*/ic/index/*) ;;
  *) exit 0 ;;
esac

status=0
printf '%s\n' "$updates" | "$ic_bin" coord hook git-reference-transaction || status=$?
case "$status" in
  0 | 1) exit "$status" ;;
  *)
    if [ "${IC_HOOK_FAIL:-}" = closed ]; then
      echo "ic: commit refused: the revert check could not run ($ic_bin exited with $status) and IC_HOOK_FAIL=closed" >&2
      exit 1
    fi
    echo "ic: warning: the revert check could not run ($ic_bin exited with $status)" >&2
    exit 0
    ;;
esac
