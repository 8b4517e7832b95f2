// Unicode NFC, without touching ICU for ASCII text (always NFC already): the first String#normalize of a
// process loads the normalization data, ~4 ms of a hook that only ever sees ASCII paths.
export function toNFC(text: string): string {
  return /^[\x00-\x7f]*$/.test(text) ? text : text.normalize('NFC');
}
