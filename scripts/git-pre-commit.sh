#!/usr/bin/env bash
# ic-commit-guard: refuses a commit whose staged paths another agent holds (`ic coord hook git-pre-commit`).
# Written by `ic coord install --git`; `ic coord uninstall --git` removes it and restores the hook it replaced.
# IC_GUARD=warn reports without blocking, IC_GUARD=off skips the check,
# IC_HOOK_FAIL=closed refuses the commit when ic itself cannot run.
set -euo pipefail

# Filled in by the installer: the absolute path of ic (single-quoted) and how to call the replaced hook.
ic_bin='ic'
chain_mode='exec'
previous="$(dirname -- "$0")/pre-commit.ic-backup"

# The hook this one replaced runs first, as git would have run it; if it fails, the commit stops here.
if [ -x "$previous" ]; then
  if [ "$chain_mode" = same-name ]; then
    # husky 9 stubs find the user's script from their own name ($0), so keep $0 naming pre-commit.
    # shellcheck disable=SC2016 # expanded by the inner sh, not here
    sh -c 'previous=$1; shift; . "$previous"' "$0" "$previous" "$@"
  else
    "$previous" "$@"
  fi
fi

if [ "${IC_GUARD:-}" = off ]; then
  exit 0
fi

# The package was removed before `ic coord uninstall`: one clear line instead of "exited with 127".
if ! command -v "$ic_bin" >/dev/null 2>&1; then
  # shellcheck disable=SC2016 # the backticks are meant literally
  echo 'ic is not installed: run `ic coord uninstall` or reinstall' >&2
  [ "${IC_HOOK_FAIL:-}" = closed ] && exit 1
  exit 0
fi

status=0
"$ic_bin" coord hook git-pre-commit </dev/null || status=$?
case "$status" in
  0 | 1) exit "$status" ;;
  *)
    if [ "${IC_HOOK_FAIL:-}" = closed ]; then
      echo "ic: commit refused: the guard could not run ($ic_bin exited with $status) and IC_HOOK_FAIL=closed" >&2
      exit 1
    fi
    echo "ic: warning: the commit guard could not run ($ic_bin exited with $status); committing anyway" >&2
    exit 0
    ;;
esac
