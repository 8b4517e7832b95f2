// A shell command that mentions git anywhere (cheap test, no database): `git …`, `cd x && git …`, `(git …)`,
// `bash -c 'git commit …'`, `/usr/bin/git`, `xargs git`. A false positive costs one refresh; a miss can
// let a stale index commit, so this errs towards yes.
export function runsGit(command: string): boolean {
  return /(^|[^A-Za-z0-9_.-])git($|[^A-Za-z0-9_-])/.test(command);
}
