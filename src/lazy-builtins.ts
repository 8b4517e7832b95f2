// Node built-ins that cost a short-lived process milliseconds to load (each pulls in more of Node's own
// modules): the hooks run before every edit and shell command, so modules in their bundles load these on
// first use, through here, never with a top-level import. test/e2e/hook-startup.test.ts fails if a hook on
// SQLite loads one of them at all.

export function crypto(): typeof import('node:crypto') {
  return require('node:crypto') as typeof import('node:crypto');
}

export function childProcess(): typeof import('node:child_process') {
  return require('node:child_process') as typeof import('node:child_process');
}

export function zlib(): typeof import('node:zlib') {
  return require('node:zlib') as typeof import('node:zlib');
}
