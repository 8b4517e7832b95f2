#!/usr/bin/env bash
# ic-commit-guard (commit-msg): refuses a commit whose message names no work item the committer holds a
# claim on (or held within the hour) (`ic coord hook git-commit-msg`).
# Written by `ic coord install --commit-gate[=REGEX]`; `ic coord uninstall --git` removes it and restores the hook it replaced.
# IC_GATE=warn reports without blocking, IC_GATE=off skips the gate,
# IC_HOOK_FAIL=closed refuses the commit when ic itself cannot run.
set -euo pipefail

# Filled in by the installer: the absolute path of ic, how to call the replaced hook, and the item pattern.
ic_bin='ic'
chain_mode='exec'
gate_pattern='bd-[0-9a-z]+'
previous="$(dirname -- "$0")/commit-msg.ic-backup"

if [ -x "$previous" ]; then
  if [ "$chain_mode" = same-name ]; then
    # shellcheck disable=SC2016 # expanded by the inner sh, not here
    sh -c 'previous=$1; shift; . "$previous"' "$0" "$previous" "$@"
  else
    "$previous" "$@"
  fi
fi

if [ "${IC_GATE:-}" = off ]; then
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
IC_GATE_PATTERN="$gate_pattern" "$ic_bin" coord hook git-commit-msg <"$1" || status=$?
case "$status" in
  0 | 1) exit "$status" ;;
  *)
    if [ "${IC_HOOK_FAIL:-}" = closed ]; then
      echo "ic: commit refused: the gate could not run ($ic_bin exited with $status) and IC_HOOK_FAIL=closed" >&2
      exit 1
    fi
    echo "ic: warning: the commit gate could not run ($ic_bin exited with $status); committing anyway" >&2
    exit 0
    ;;
esac
