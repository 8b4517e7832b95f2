// A shell word that is exactly `text`, whatever it contains: single quotes, with each ' written as '\''.
// The form for what ic writes into files a shell reads (hook commands, env files): the same for every text.
export function singleQuoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

// One argument for a POSIX shell, for commands ic prints for people to paste: plain words stay readable,
// anything else is single-quoted.
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : singleQuoted(text);
}
