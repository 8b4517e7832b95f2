import { IcError } from './errors';
import { toNFC } from './glob/syntax';

// The text rule for everything a person names: owners, lock names, claim items, consumers, patterns and
// reasons (docs/reference.md, "Names"). Each refused character is invisible, rewrites the terminal, or
// reorders what is shown, so two different names could look the same or a name could look like something
// else. Refused by Unicode property, not by a list, so every such character of the running Unicode
// version is covered: controls (C0, C1, DEL: \p{Cc}), \p{Bidi_Control} (U+061C, U+200E/F, U+202A–E,
// U+2066–9), \p{Default_Ignorable_Code_Point} (soft hyphen, zero-width characters, U+3164 Hangul filler,
// variation selectors, tags, ...) and the line/paragraph separators U+2028/U+2029.
// Built on first use: building these property classes cost every process that loads this module ~1.4 ms
// (measured in the hook bundle's start-up), and most hooks check no name.
const REFUSED_SOURCE = '[\\p{Cc}\\p{Bidi_Control}\\p{Default_Ignorable_Code_Point}\\u2028\\u2029]';
let compiled: { first: RegExp; all: RegExp; loneSurrogate: RegExp } | undefined;

function patterns(): NonNullable<typeof compiled> {
  compiled ??= { first: new RegExp(REFUSED_SOURCE, 'u'), all: new RegExp(REFUSED_SOURCE, 'gu'), loneSurrogate: /\p{Surrogate}/u };
  return compiled;
}

// The first refused character, as `U+202E`, or undefined when the text follows the rule.
export function refusedCharacter(text: string): string | undefined {
  const found = patterns().first.exec(text);
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` : undefined;
}

// Throws INVALID_INPUT when `text` breaks the text rule; `what` names the flag or argument in the message.
export function checkText(text: string, what: string): string {
  if (patterns().loneSurrogate.test(text)) throw new IcError('INVALID_INPUT', `${what} is not valid Unicode`, { value: escapeForDisplay(text) });
  const refused = refusedCharacter(text);
  if (refused !== undefined) {
    throw new IcError('INVALID_INPUT', `${what} must not contain control, bidi or zero-width characters (found ${refused} in "${escapeForDisplay(text)}")`, { value: escapeForDisplay(text) });
  }
  return text;
}

// Names of named locks, claims and consumers: any text that follows the rule, compared exactly after NFC.
export function validateName(input: string, what: string): string {
  const name = toNFC(checkText(input, what));
  if (name.trim() === '') throw new IcError('INVALID_INPUT', `${what} must not be empty`);
  if ([...name].length > 256) throw new IcError('INVALID_INPUT', `${what} may be at most 256 characters`);
  return name;
}

// Text from the database as a terminal may show it: every refused character becomes `\u{…}`, so a
// stored name can neither move the cursor nor pass for another name. JSON output is not escaped.
export function escapeForDisplay(text: string): string {
  return text.replace(patterns().all, (char) => `\\u{${char.codePointAt(0)!.toString(16).toUpperCase()}}`);
}
