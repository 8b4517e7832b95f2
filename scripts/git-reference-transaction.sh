#!/usr/bin/env bash
# ic-commit-guard (reference-transaction): the last word before a ref moves, which `git commit --no-verify`
# does not skip. Two checks, at the `prepared` state only: with the guard (pre-commit) installed beside
# it, a new commit on the current branch may not contain a file another agent holds; and a commit made from
# a private staging area that another session's commit has overtaken may not put back what that commit
# changed. Written by `ic coord install --git` / `--git-index`; `ic coord uninstall --git` removes it and
# restores the hook it replaced. Every ref update (fetch, branch, rebase, stash) runs it, so it returns at
# once unless a private staging area is in use or the current branch moves to a child of its old tip.
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

if [ "${1:-}" != prepared ]; then
  exit 0
fi

# Is ic's pre-commit guard installed beside this hook? (Its marker is in its first lines; no process.)
guard_installed() {
  local line count=0
  [ -f "${0%/*}/pre-commit" ] || return 1
  while [ "$count" -lt 5 ] && IFS= read -r line; do
    case "$line" in '# ic-commit-guard'*) return 0 ;; esac
    count=$((count + 1))
  done <"${0%/*}/pre-commit"
  return 1
}

# Does this transaction move the current branch to a commit whose one parent is the branch's old tip?
# (What `git commit` does, with or without --no-verify; an amend, a rebase or a reset does not.)
moves_branch_to_child() {
  local branch old new ref parents
  branch="$(git symbolic-ref -q HEAD 2>/dev/null)" || return 1
  while read -r old new ref; do
    [ "$ref" = "$branch" ] || continue
    case "$old" in *[!0]*) ;; *) continue ;; esac
    case "$new" in *[!0]*) ;; *) continue ;; esac
    parents="$(git rev-list --parents -n 1 "$new" 2>/dev/null)" || continue
    [ "$parents" = "$new $old" ] && return 0
  done <<<"$updates"
  return 1
}

commit_check=0
if [ "${IC_GUARD:-}" != off ] && guard_installed && moves_branch_to_child; then
  commit_check=1
fi
case "${GIT_INDEX_FILE:-}" in
  */ic/index/*) ;;
  *) [ "$commit_check" = 1 ] || exit 0 ;;
esac

# The package was removed before `ic coord uninstall`: one clear line instead of "exited with 127".
if ! command -v "$ic_bin" >/dev/null 2>&1; then
  # shellcheck disable=SC2016 # the backticks are meant literally
  echo 'ic is not installed: run `ic coord uninstall` or reinstall' >&2
  [ "${IC_HOOK_FAIL:-}" = closed ] && exit 1
  exit 0
fi

status=0
printf '%s\n' "$updates" | IC_GUARD_COMMIT="$commit_check" "$ic_bin" coord hook git-reference-transaction || status=$?
case "$status" in
  0 | 1) exit "$status" ;;
  *)
    if [ "${IC_HOOK_FAIL:-}" = closed ]; then
      echo "ic: commit refused: the ref update check could not run ($ic_bin exited with $status) and IC_HOOK_FAIL=closed" >&2
      exit 1
    fi
    echo "ic: warning: the ref update check could not run ($ic_bin exited with $status)" >&2
    exit 0
    ;;
esac
