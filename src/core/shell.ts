// One argument for a POSIX shell, whatever it contains: for commands ic prints for people to paste.
// Plain words stay readable; anything else is single-quoted, with each ' written as '\''.
export function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
