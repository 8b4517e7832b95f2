import { describe, expect, it } from 'vitest';
import { checkText, escapeForDisplay, refusedCharacter, validateName } from '../../src/core/names';
import { isRunOwner, runOwner, validateOwner } from '../../src/core/owner';
import { IcError } from '../../src/core/errors';
import { EXIT_CODES } from '../../src/cli/exit-codes';

const REFUSED: [string, string, string][] = [
  ['NUL', 'a\u0000b', 'U+0000'],
  ['tab', 'a\tb', 'U+0009'],
  ['newline', 'a\nb', 'U+000A'],
  ['escape', '\u001b[2J', 'U+001B'],
  ['DEL', 'a\u007f', 'U+007F'],
  ['C1 CSI', '\u009b2J', 'U+009B'],
  ['C1 NEL', 'a\u0085b', 'U+0085'],
  ['zero-width space', 'al\u200bice', 'U+200B'],
  ['zero-width non-joiner', 'al\u200cice', 'U+200C'],
  ['zero-width joiner', 'al\u200dice', 'U+200D'],
  ['word joiner', 'al\u2060ice', 'U+2060'],
  ['byte order mark', '\ufeffalice', 'U+FEFF'],
  ['LRE', 'a\u202ab', 'U+202A'],
  ['RLO', 'a\u202eb', 'U+202E'],
  ['LRI', 'a\u2066b', 'U+2066'],
  ['PDI', 'a\u2069b', 'U+2069'],
  ['line separator', 'a\u2028b', 'U+2028'],
  ['paragraph separator', 'a\u2029b', 'U+2029'],
  // By property (Bidi_Control, Default_Ignorable_Code_Point), not by list: each of these printed exactly like its neighbours.
  ['left-to-right mark', 'al\u200eice', 'U+200E'],
  ['right-to-left mark', 'al\u200fice', 'U+200F'],
  ['Arabic letter mark', 'al\u061cice', 'U+061C'],
  ['soft hyphen', 'al\u00adice', 'U+00AD'],
  ['combining grapheme joiner', 'al\u034fice', 'U+034F'],
  ['Mongolian vowel separator', 'al\u180eice', 'U+180E'],
  ['Hangul filler', 'al\u3164ice', 'U+3164'],
  ['Hangul choseong filler', 'al\u115fice', 'U+115F'],
  ['variation selector 16', 'alice\ufe0f', 'U+FE0F'],
  ['language tag', 'alice\u{E0001}', 'U+E0001'],
  ['unassigned default-ignorable', 'alice\u{E0FFF}', 'U+E0FFF'],
];

const ACCEPTED = ['alice', 'claude-1f3a/agent-2', 'src/**/*.ts', 'José', '日本語', 'a b', 'fix 🐛', 'issue#42', '\ufffd', 'עברית', 'العربية', 'ㅎ', 'a-b'];

describe('the text rule', () => {
  it.each(REFUSED)('refuses %s', (_label, text, code) => {
    expect(refusedCharacter(text)).toBe(code);
    expect(() => checkText(text, 'owner')).toThrow(IcError);
    try {
      checkText(text, 'owner');
    } catch (error) {
      expect((error as IcError).code).toBe('INVALID_INPUT');
      expect(EXIT_CODES[(error as IcError).code]).toBe(65);
      expect((error as IcError).message).toContain(code);
      expect((error as IcError).message).not.toMatch(/[\p{Cc}\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u);
    }
  });

  it.each(ACCEPTED)('accepts %j', (text) => {
    expect(checkText(text, 'name')).toBe(text);
  });

  it('refuses a lone surrogate as invalid Unicode', () => {
    expect(() => checkText('a\ud800b', 'owner')).toThrow(/not valid Unicode/);
  });

  it('escapes every refused character for display and leaves the rest alone', () => {
    expect(escapeForDisplay('a\u202eb\u009b2J\u200b')).toBe('a\\u{202E}b\\u{9B}2J\\u{200B}');
    expect(escapeForDisplay('José 日本')).toBe('José 日本');
    for (const [, text] of REFUSED) expect(refusedCharacter(escapeForDisplay(text))).toBeUndefined();
  });
});

describe('owners and names', () => {
  it('holds owners to the rule, 1–128 characters, not blank', () => {
    expect(validateOwner('alice')).toBe('alice');
    expect(() => validateOwner('al\u200bice')).toThrow(/U\+200B/);
    expect(() => validateOwner('x'.repeat(129))).toThrow(/128/);
    expect(() => validateOwner('   ')).toThrow(/blank/);
    expect(() => validateOwner(undefined)).toThrow(/owner is required/);
  });

  it('normalises names to NFC and holds them to the rule', () => {
    expect(validateName('Jose\u0301', 'lock name')).toBe('José');
    expect(() => validateName('tests\u202e', 'lock name')).toThrow(/lock name must not contain/);
    expect(() => validateName(' ', 'lock name')).toThrow(/empty/);
  });

  it('marks the owner of a run so that it can be told apart', () => {
    const owner = runOwner('alice', 'k3j9x0ab');
    expect(owner).toBe('alice/run-k3j9x0ab');
    expect(isRunOwner(owner)).toBe(true);
    expect(isRunOwner('alice')).toBe(false);
    expect(isRunOwner('alice/run-')).toBe(false);
  });
});
