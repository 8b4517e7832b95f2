import { describe, expect, it } from 'vitest';
import { IcError } from '../../src/core/errors';
import { isRunOwner, runOwner, validateOwner } from '../../src/core/owner';

const codeOf = (run: () => unknown): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(IcError);
    return (error as IcError).code;
  }
};

describe('validateOwner', () => {
  it.each(['alice', 'claude/session-1', 'a'.repeat(128), 'Zoë', '日本'])('accepts %j', (owner) => {
    expect(validateOwner(owner)).toBe(owner);
  });

  it.each([
    ['missing', undefined, 'USAGE'],
    ['empty', '', 'USAGE'],
    ['blank', '   ', 'INVALID_INPUT'],
    ['too long', 'a'.repeat(129), 'INVALID_INPUT'],
    ['with a control character', 'ali\u0007ce', 'INVALID_INPUT'],
    ['with U+FFFD (bytes that were not UTF-8)', 'x\ufffd', 'INVALID_INPUT'],
  ] as const)('refuses an owner that is %s', (_label, owner, code) => {
    expect(codeOf(() => validateOwner(owner))).toBe(code);
  });

  it('counts characters, not UTF-16 units, and names the flag it was given', () => {
    expect(validateOwner('😀'.repeat(128))).toHaveLength(256);
    expect(() => validateOwner(undefined, '--to')).toThrow(/pass --to NAME/);
  });
});

describe('run owners', () => {
  it('are OWNER/run-ID and recognised only in that shape', () => {
    expect(runOwner('alice', 'abcd1234')).toBe('alice/run-abcd1234');
    expect(isRunOwner(runOwner('alice', 'abcd1234'))).toBe(true);
    expect(isRunOwner('alice')).toBe(false);
    expect(isRunOwner('alice/run-ABCD1234')).toBe(false);
    expect(isRunOwner('alice/run-abcd123')).toBe(false);
  });
});
